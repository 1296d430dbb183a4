export { ApiError, type ApiErrorCode, ERROR_STATUS, isApiError } from './errors.js';
export { admitTurn, type TurnAdmission, type TurnLimits } from './limits.js';
export type { LogEntry } from './log.js';
export { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from './mcp-endpoint.js';
export { openApiDocument } from './openapi.js';
export type { ServeRuntime, TurnEvent, TurnHandlers, TurnInput, TurnStatus, TurnSummary } from './runtime.js';
export { type BirdieServer, createServer, type ServerOptions } from './server.js';
export type { AgentInfo, SkillChange, SkillInfo } from './skills.js';
export { type WorkspaceOptions, Workspaces } from './workspaces.js';
