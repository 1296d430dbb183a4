/**
 * Whether a `bash:` template carries the code-taking-program warning of issue 28, item 3 (and therefore asks for
 * approval): the warning's text, or undefined. Until that table lands, no template carries it.
 */
export function codeTakingWarning(_template: string): string | undefined {
  return undefined;
}
