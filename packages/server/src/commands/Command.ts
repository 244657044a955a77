/**
 * What a `pixgate` command is, apart from the table that lists them (`Commands.ts`): its words'
 * synopsis, flags with their checks, examples, and the operation it runs. Every command file
 * (`commands/*.ts`) and the table import these types from here, so neither imports the other.
 */
import type { DataCipher, Engine, Errors, Store, WebhookTransport } from "@pixgate/core"
import { Context, Data, type Effect, type Option } from "effect"
import type { Readable } from "./Output.js"
import type { RemoteFailure, Server } from "./Remote.js"

/** A usage error: exit code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/**
 * Asks the person at the terminal a question and reads one line; none when nobody can answer
 * (stdin is not a terminal), so a command asks only where someone can say yes.
 */
export class Ask extends Context.Tag("@pixgate/server/Ask")<
  Ask,
  (question: string) => Effect.Effect<Option.Option<string>>
>() {}

/** Flag values by name, as the CLI parsed them. */
export type Flags = Readonly<Record<string, string | undefined>>

/** The engine's admin operations, as a command runs them. */
export type Admin = Engine.EngineShape["admin"]

/**
 * A command's flags as its `run` sees them: each required flag set (the CLI's parser and its
 * secret filling make sure of it, and `runPanel` checks it again), each optional one maybe.
 */
export type FlagsOf<Required extends string, Optional extends string> = {
  readonly [K in Required]: string
} & { readonly [K in Optional]?: string | undefined }

/** One flag: what it means, and the check of its value (before anything runs). */
export interface Flag {
  readonly description: string
  /** The value's name in usage lines, e.g. `ID` in `--merchant ID`; a switch (no value) has none. */
  readonly value: string
  /** A switch (`--print-secret`): present or not; its value in `run` is `"yes"` when given. */
  readonly switch?: true
  readonly test?: (value: string) => boolean
  readonly message?: string
  /**
   * A secret: also read from this environment variable, or from stdin (`--flag -`, or when the
   * flag is left out and stdin is not a terminal); given as an argument it works, with a warning.
   */
  readonly secretEnv?: string
}

/**
 * One command; `Required` and `Optional` name its flags (`command(...)` infers them from the
 * lists). `Command` alone, any command of the table: its `run` then takes the parsed flags.
 */
export interface Command<Required extends string = string, Optional extends string = string> {
  /** The synopsis after `pixgate`, e.g. `key create --merchant ID --mode test|live`. */
  readonly usage: string
  /** One sentence: what it does. */
  readonly summary?: string
  readonly required: ReadonlyArray<Required>
  readonly optional?: ReadonlyArray<Optional>
  /** Names of positional arguments. */
  readonly args?: ReadonlyArray<string>
  /** Whole command lines, shown under "Examples". */
  readonly examples?: ReadonlyArray<string>
  /** Flags of this command that mean something else than the shared flag of the same name. */
  readonly flags?: Readonly<Record<string, Flag>>
  // A method, so that a command typed by its flags is also a `Command` of the table (its
  // parameters compare both ways); the CLI calls it only with every required flag set.
  run(
    admin: Admin,
    flags: string extends Required ? Flags : FlagsOf<Required, Optional>,
    args: ReadonlyArray<string>,
    /** Prints one item at once, in the output's form (a command that follows something prints as it goes). */
    print: (item: Readable) => Effect.Effect<void>
  ): Effect.Effect<
    Readable,
    Errors.PixgateError | UsageError,
    Engine.Engine | Store.Store | WebhookTransport.WebhookTransport | DataCipher.Keyring | Ask
  >
  /**
   * What the command does against a running server instead (`--server URL`): the local database
   * is never opened. Commands without it work on the database only.
   */
  remote?(
    server: Server,
    flags: string extends Required ? Flags : FlagsOf<Required, Optional>,
    args: ReadonlyArray<string>,
    print: (item: Readable) => Effect.Effect<void>
  ): Effect.Effect<Readable, UsageError | RemoteFailure, WebhookTransport.WebhookTransport | Ask>
}

/**
 * One command of the table, its flags typed by its `required` and `optional` lists: `run` reads
 * `f.merchant` as a string when `merchant` is required, and cannot read a flag it does not list.
 */
export const command = <const Required extends string = never, const Optional extends string = never>(
  definition: Command<Required, Optional>
): Command<Required, Optional> => definition
