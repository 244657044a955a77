import type { Command } from "../Commands.js"

/**
 * A command's flags as its `run` sees them: each required flag set (the CLI's parser and its
 * secret filling make sure of it, and `runPanel` checks it again), each optional one maybe.
 */
export type FlagsOf<Required extends string, Optional extends string> = {
  readonly [K in Required]: string
} & { readonly [K in Optional]?: string | undefined }

/**
 * One command of the table, its flags typed by its `required` and `optional` lists: `run` reads
 * `f.merchant` as a string when `merchant` is required, and cannot read a flag it does not list.
 */
export const command = <const Required extends string = never, const Optional extends string = never>(
  definition: Command<Required, Optional>
): Command<Required, Optional> => definition
