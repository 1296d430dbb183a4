export { serveAcp } from './agent.js';
export { ACP_MODES } from './modes.js';
export { PLAN_TOOLS, planFromTodoOutput } from './plan.js';
export type {
  AcpRuntime,
  AcpSessionInfo,
  AcpTurnOptions,
  AcpTurnResult,
  FileAccess,
} from './runtime.js';
