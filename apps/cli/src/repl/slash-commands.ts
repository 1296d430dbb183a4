/** The built-in slash commands: their usage and what each does (`/help`, completion, usage answers). */
export const SLASH_COMMANDS: Array<[string, string]> = [
  ['/help', 'this list'],
  ['/remember TEXT', 'keep TEXT in long-term memory (all your sessions)'],
  ['/memory [forget ID]', 'list long-term memory, or forget one entry'],
  ['/info', 'user, session, turns, provider, where its config came from, the sandbox'],
  ['/tool list', 'tools the model can call now'],
  ['/tool output full|short|off', 'how much of each tool result to show (default short)'],
  ['/skill list', 'skills and whether this session may use them'],
  [
    '/skill enable|disable NAME',
    'change it for this session (saved; applies next turn); several names at once too',
  ],
  ['/skill reload', 're-read every skills folder'],
  ['/session new|switch ID|delete ID|list|info', 'manage sessions'],
  ['/session rename TITLE', "set this session's title"],
  [
    '/model [TIER | vendor:model]',
    'show the model in use, or switch (fast, default, strong, or e.g. openai:gpt-4o-mini)',
  ],
  ['/compact [INSTRUCTIONS]', 'summarise the older conversation now (the history is kept)'],
  ['/agent [list | NAME | none]', 'show the agent answering, list agents, or switch (from the next turn)'],
  ['/new', 'start a new session'],
  ['/approval ask|always|never', 'when tool calls need your approval'],
  [
    '/permissions',
    'the approval rules in force, each with where it comes from (birdie config add permissions.allow …)',
  ],
  [
    '/config [list | get KEY | set KEY VALUE | unset KEY]',
    'your defaults for new sessions (as birdie config)',
  ],
  ['/clear', 'clear the screen'],
  ['/quit, /exit', 'leave (Ctrl+D on an empty line too)'],
];

/** The built-in command names: a custom command of the same name is hidden (and `/help` says so). */
export const NAMES = [
  ...new Set(SLASH_COMMANDS.flatMap(([usage]) => usage.match(/(?<=^|, )\/[a-z]+/g) ?? [])),
].map((name) => name.slice(1));
