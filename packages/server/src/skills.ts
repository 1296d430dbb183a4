/** A skill a token holder may enable (`GET /v1/skills`), as the operator's policy allows it to API sessions. */
export interface SkillInfo {
  name: string;
  description: string;
  /** On in every new session without being asked for. */
  enabledByDefault: boolean;
  /** The skill brings an MCP server: its tools are known once it runs. */
  mcpServer: boolean;
  tools: Array<{
    name: string;
    description: string;
    /** Runs a raw command: it asks on every call, whatever the server's `--approval`. */
    raw: boolean;
    /** `always`: every call waits for the session's user to approve it (`POST …/approvals`); `never`: it runs. */
    approval: 'always' | 'never';
  }>;
}

/** An agent a token holder may start a session with (`GET /v1/agents`), as the operator's policy allows it. */
export interface AgentInfo {
  name: string;
  description: string;
  /** The model (`vendor:model`) or tier its file names. */
  model?: string;
  /** Skills its file enables. */
  skills?: string[];
  subagents?: string[];
  handoffs?: string[];
}

/** Skills to switch on and off in a session (`PUT /v1/sessions/{id}/skills`). */
export interface SkillChange {
  enable: string[];
  disable: string[];
}
