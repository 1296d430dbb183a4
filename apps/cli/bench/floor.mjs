// The floor a start-up is measured against: a process that merely imports LangGraph's and LangChain core's entry
// points (unbundled, from node_modules) and opens an in-memory better-sqlite3 database, then exits.
import '@langchain/langgraph';
import '@langchain/core/messages';
import Database from 'better-sqlite3';

new Database(':memory:').close();
