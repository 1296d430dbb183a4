import { escapeInvisible } from '@birdie/graph/visible-text';

/**
 * A tool's name, path or arguments as the app shows them: the model wrote them, so a bidi override or a zero-width
 * character in them is written out (`\u202e`), never left to reorder or hide text — what the user approves reads as
 * what runs. The rule is @birdie/graph's, shared with the CLI's approval box.
 */
export const shown = escapeInvisible;

/** Arguments as indented JSON, escaped the same way (the escapes are JSON's own: the text parses to the same value). */
export const shownJson = (args: unknown): string => escapeInvisible(JSON.stringify(args, null, 2));
