/**
 * Personal data and its keys (docs/operations.md, "Personal data at rest" and "Retention and
 * erasure"): `erase payer` and `erase expired` through the engine's `Erasure` service (the admin
 * API's `POST /admin/payers/erase` runs the same), `data-key status` and `data-key reencrypt`
 * through the store's `DataCipher.Keyring`.
 */
import { DataCipher, Engine, Errors } from "@pixgate/core"
import { Duration, Effect } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { fields, Readable, table } from "./Output.js"

/** Flags only these commands take. */
const privacyFlags: Readonly<Record<string, Flag>> = {
  document: {
    value: "CPF|CNPJ",
    description: "the payer's (or payout recipient's) CPF or CNPJ, formatted or digits only"
  },
  days: {
    value: "N",
    description: "erase what is older than this many days",
    test: (v) => /^\d{1,5}$/.test(v) && Number(v) > 0,
    message: "--days must be a whole number of days from 1"
  }
}

/** What an erasure did, for a person and for `--json`. */
const erased = (result: { readonly transactions: number; readonly subscriptions?: number }) =>
  new Readable(
    result,
    `erased the personal data of ${result.transactions} transaction(s)` +
      (result.subscriptions ? ` and ${result.subscriptions} subscription(s)` : "") +
      "\n"
  )

/** Each data key and the master keys that wrap it. */
const wrappingTable = (wrappings: ReadonlyArray<DataCipher.Wrapping>) =>
  table(
    ["DATA KEY", "PURPOSE", "WRAPPED BY"],
    wrappings.map((w) => [w.dataKeyId, w.purpose, w.masterKeyIds.join(", ")])
  )

/** The privacy commands by their words. */
export const privacyCommands: Readonly<Record<string, Command>> = {
  "erase payer": command({
    summary:
      "Replaces the name, CPF/CNPJ and PIX key of every transaction of this payer (every merchant and mode) with " +
      "[erased], and the PIX key in their webhook events; amounts, ids and the ledger stay exactly as they were.",
    examples: ["pixgate erase payer --document 529.982.247-25"],
    usage: "erase payer --document CPF|CNPJ",
    required: ["document"],
    flags: privacyFlags,
    run: (_admin, f) =>
      Effect.flatMap(Engine.Engine, (engine) => Effect.map(engine.erasure.erasePayer(f.document), erased))
  }),
  "erase expired": command({
    summary:
      "Erases the personal data of every transaction created more than --days ago (what PIXGATE_PERSONAL_DATA_RETENTION_DAYS " +
      "makes `serve` do every hour).",
    examples: ["pixgate erase expired --days 1825"],
    usage: "erase expired --days N",
    required: ["days"],
    flags: privacyFlags,
    run: (_admin, f) =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Effect.map(engine.erasure.eraseOlderThan(Duration.days(Number(f.days))), erased)
      )
  }),
  "data-key status": command({
    summary:
      "Shows the active master key's id and every data key of the database with the master keys that wrap it.",
    examples: ["pixgate data-key status"],
    usage: "data-key status",
    required: [],
    run: () =>
      Effect.flatMap(DataCipher.Keyring, (k) =>
        Effect.mapBoth(k.status, {
          onFailure: (e) => Errors.unavailable(e),
          onSuccess: (status) =>
            new Readable(
              status,
              `active master key: ${status.activeMasterKeyId}\n${wrappingTable(status.wrappings)}`
            )
        })
      )
  }),
  "data-key reencrypt": command({
    summary:
      "Seals again every value not under the active data key and drops the wrappings under retired master keys: " +
      "run it once every instance runs with the new PIXGATE_DATA_KEY, then forget the retired one.",
    examples: ["pixgate data-key reencrypt"],
    usage: "data-key reencrypt",
    required: [],
    run: () =>
      Effect.flatMap(DataCipher.Keyring, (k) =>
        Effect.mapBoth(k.reencrypt(), {
          onFailure: (e) => Errors.unavailable(e),
          onSuccess: (done) =>
            new Readable(
              done,
              fields([
                ["values sealed again", String(done.values)],
                ["wrappings dropped", String(done.droppedWrappings)]
              ]) + wrappingTable(done.wrappings)
            )
        })
      )
  })
}
