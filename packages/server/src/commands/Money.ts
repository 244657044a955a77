/**
 * The money commands: `charge create`, `payout create` and `transactions list`. Each runs the
 * engine's own service (Charges, Payouts, Transactions) as the merchant's API key would, with
 * the HTTP API's request schemas (`Requests.CreateCharge`, `CreatePayout`,
 * `ListTransactionsRequest`): the same validation messages, the same fee rules, amounts read
 * into integer centavos by core's decoder. The caller is the merchant in the chosen mode, named
 * `panel:cli` (the operator at the command line, not one of its keys).
 */
import { Engine, type Errors, Requests } from "@pixgate/core"
import { Effect, type Schema } from "effect"
import type { Command, Flag } from "../Commands.js"
import { command } from "./Command.js"
import { fields, Readable, reais, table } from "./Output.js"

type Mode = "test" | "live"

/** A number when the text is one (the engine's decoder then judges it), else the text itself. */
export const amountOf = (text: string | undefined): unknown =>
  text !== undefined && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text

/** The merchant `--merchant` names, calling in `--mode`, as its API key would. */
const caller = (merchantId: string, mode: Mode) =>
  Effect.flatMap(Engine.Engine, (engine) =>
    Effect.map(engine.admin.getMerchant(merchantId), (merchant) => ({
      merchant,
      mode,
      keyId: "panel:cli" as const
    }))
  )

/** Decodes with the engine's maximum amount, as the API does. */
export const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (input: unknown): Effect.Effect<A, Errors.ValidationError | Errors.InvalidJson, Engine.Engine> =>
    Effect.flatMap(Engine.Engine, (engine) => Requests.decode(schema, engine.config)(input))

/** A flag whose value is a JSON object (the API's field of the same name; its decoder judges the rest). */
function jsonObject(name: string): Pick<Flag, "test" | "message"> {
  return {
    test: (v) => {
      try {
        const value = JSON.parse(v)
        return typeof value === "object" && value !== null && !Array.isArray(value)
      } catch {
        return false
      }
    },
    message: `--${name} must be a JSON object`
  }
}

/** Flags only these commands take. */
export const moneyFlags: Readonly<Record<string, Flag>> = {
  description: { value: "TEXT", description: "a note: shown to the payer (charges), kept with the payout" },
  "client-name": { value: "NAME", description: "the payer's (charges) or recipient's (payouts) name" },
  "client-doc": {
    value: "CPF|CNPJ",
    description: "the payer's (charges) or recipient's (payouts) CPF or CNPJ, formatted or digits only"
  },
  "due-date": {
    value: "YYYY-MM-DD",
    description:
      "makes the charge a due-date charge (the API Pix cobv), due on this day (São Paulo), today or later; " +
      "needs --client-name and --client-doc"
  },
  "days-after-due": {
    value: "N",
    description: "days a due-date charge stays payable after its due date (0 to 365, default 30)"
  },
  fine: {
    value: "JSON",
    description:
      'a due-date charge\'s fine for paying late, as in the API, e.g. {"type":"percent","value":2}',
    ...jsonObject("fine")
  },
  interest: {
    value: "JSON",
    description:
      'a due-date charge\'s interest for paying late, as in the API, e.g. {"type":"percentPerMonth","value":1}',
    ...jsonObject("interest")
  },
  discount: {
    value: "JSON",
    description:
      'a due-date charge\'s discount for paying early, as in the API, e.g. {"type":"fixedUntil","dates":[{"until":"2027-03-01","value":10}]}',
    ...jsonObject("discount")
  },
  abatement: {
    value: "JSON",
    description: 'a due-date charge\'s abatement, on any day, as in the API, e.g. {"type":"fixed","value":5}',
    ...jsonObject("abatement")
  },
  "pix-key": {
    value: "KEY",
    description: "the recipient's PIX key: CPF, CNPJ, e-mail, phone (+55...) or random key (EVP)"
  },
  type: { value: "TYPE", description: "only transactions of this type: deposit, withdrawal or payment" },
  "start-date": { value: "YYYY-MM-DD", description: "only transactions from this day on (UTC)" },
  "end-date": { value: "YYYY-MM-DD", description: "only transactions up to this day, inclusive (UTC)" },
  page: { value: "N", description: "the page, from 1 (default 1)" }
}

/**
 * `--status` and `--limit` of `transactions list`: the API's query parameters, checked by its
 * schema (the panel's flags of the same names check delivery statuses and log sizes).
 */
const listFlags: Readonly<Record<string, Flag>> = {
  status: {
    value: "STATUS",
    description: "only transactions in this status: pending, completed, failed or refunded"
  },
  limit: { value: "N", description: "transactions per page (default 20, at most 100)" }
}

/** `{ [key]: value }`, or nothing when the flag was left out. */
const optional = (key: string, value: string | undefined): Record<string, string> =>
  value === undefined ? {} : { [key]: value }

/** `{ [key]: the JSON value }`, or nothing when the flag was left out (its value was checked to be JSON). */
const optionalJson = (key: string, value: string | undefined): Record<string, unknown> =>
  value === undefined ? {} : { [key]: JSON.parse(value) }

/** `{ [key]: the number }` when the text is one (else the text, for the decoder to refuse), or nothing. */
const optionalNumber = (key: string, value: string | undefined): Record<string, unknown> =>
  value === undefined ? {} : { [key]: amountOf(value) }

/** Every money command by its words (and `merchant list`, the operator's view of who there is). */
export const moneyCommands: Readonly<Record<string, Command>> = {
  "merchant list": command({
    summary: "Lists every merchant, newest first: id, name, city and when it was created.",
    examples: ["pixgate merchant list", "pixgate merchant list --json"],
    usage: "merchant list",
    required: [],
    run: (admin) =>
      Effect.map(admin.listMerchants(), (merchants) => {
        const json = merchants.map((m) => ({
          merchantId: m.id,
          name: m.name,
          city: m.city,
          feePlan: m.feePlan,
          createdAt: new Date(m.createdAt).toISOString()
        }))
        return new Readable(
          json,
          table(
            ["ID", "NAME", "CITY", "CREATED"],
            json.map((m) => [m.merchantId, m.name, m.city, m.createdAt]),
            "(no merchants: pixgate merchant create --name NAME)"
          )
        )
      })
  }),
  "charge create": command({
    summary:
      "Creates a PIX charge for a merchant (a test one in the sandbox); prints its id, BR Code and fees.",
    examples: [
      "pixgate charge create --merchant mer_... --mode test --amount 25.90",
      'pixgate charge create --merchant mer_... --mode test --amount 100 --description "Order 1234" --json',
      'pixgate charge create --merchant mer_... --mode test --amount 500 --due-date 2027-03-10 --client-name "Maria Silva" --client-doc 529.982.247-25 --fine \'{"type":"percent","value":2}\' --interest \'{"type":"percentPerMonth","value":1}\''
    ],
    usage:
      "charge create --merchant ID --mode test|live --amount N [--description TEXT] [--client-name NAME] [--client-doc CPF|CNPJ] " +
      "[--due-date YYYY-MM-DD [--days-after-due N] [--fine JSON] [--interest JSON] [--discount JSON] [--abatement JSON]]",
    required: ["merchant", "mode", "amount"],
    optional: [
      "description",
      "client-name",
      "client-doc",
      "due-date",
      "days-after-due",
      "fine",
      "interest",
      "discount",
      "abatement"
    ],
    run: (_, f) =>
      Effect.gen(function* () {
        const input = yield* decode(Requests.CreateCharge)({
          amount: amountOf(f.amount),
          ...optional("description", f.description),
          ...optional("clientName", f["client-name"]),
          ...optional("clientDoc", f["client-doc"]),
          ...optional("dueDate", f["due-date"]),
          ...optionalNumber("daysAfterDue", f["days-after-due"]),
          ...optionalJson("fine", f.fine),
          ...optionalJson("interest", f.interest),
          ...optionalJson("discount", f.discount),
          ...optionalJson("abatement", f.abatement)
        })
        const who = yield* caller(f.merchant, f.mode as Mode)
        const charge = yield* Effect.flatMap(Engine.Engine, (engine) => engine.charges.create(who, input))
        return new Readable(
          charge,
          fields([
            ["transaction", charge.transactionId],
            ["txid", charge.txid],
            ["amount", reais(charge.amount)],
            ["fee", reais(charge.fees.feeAmount)],
            ["net", reais(charge.fees.netAmount)],
            ...(charge.dueDate === undefined
              ? []
              : ([
                  ["due date", charge.dueDate],
                  ["payable until", charge.payableUntil ?? ""],
                  ["due today", charge.amountDue === undefined ? "" : reais(charge.amountDue.total)]
                ] as const)),
            ["expires", charge.expiresAt],
            ["BR Code", charge.qrCode]
          ])
        )
      })
  }),
  "payout create": command({
    summary: "Sends a PIX payout from a merchant's available balance to a PIX key; prints its id and fees.",
    examples: [
      "pixgate payout create --merchant mer_... --mode test --amount 10 --pix-key maria@example.com",
      "pixgate payout create --merchant mer_... --mode test --amount 5.50 --pix-key +5511999998888 --json"
    ],
    usage:
      "payout create --merchant ID --mode test|live --amount N --pix-key KEY [--description TEXT] [--client-name NAME] [--client-doc CPF|CNPJ]",
    required: ["merchant", "mode", "amount", "pix-key"],
    optional: ["description", "client-name", "client-doc"],
    run: (_, f) =>
      Effect.gen(function* () {
        const input = yield* decode(Requests.CreatePayout)({
          amount: amountOf(f.amount),
          pixKey: f["pix-key"],
          ...optional("description", f.description),
          ...optional("clientName", f["client-name"]),
          ...optional("clientDoc", f["client-doc"])
        })
        const who = yield* caller(f.merchant, f.mode as Mode)
        const payout = yield* Effect.flatMap(Engine.Engine, (engine) => engine.payouts.create(who, input))
        return new Readable(
          payout,
          fields([
            ["transaction", payout.transactionId],
            ["status", payout.status],
            ["amount", reais(payout.amount)],
            ["fee", reais(payout.fees.feeAmount)],
            ["net", reais(payout.fees.netAmount)],
            ["end-to-end id", payout.endToEndId ?? "(not yet)"]
          ])
        )
      })
  }),
  "transactions list": command({
    summary: "Lists a merchant's transactions in one mode, newest first, with the API's filters and pages.",
    examples: [
      "pixgate transactions list --merchant mer_... --mode test",
      "pixgate transactions list --merchant mer_... --mode test --type deposit --status completed --start-date 2026-01-01 --json"
    ],
    usage:
      "transactions list --merchant ID --mode test|live [--type TYPE] [--status STATUS] [--start-date YYYY-MM-DD] [--end-date YYYY-MM-DD] [--page N] [--limit N]",
    required: ["merchant", "mode"],
    optional: ["type", "status", "start-date", "end-date", "page", "limit"],
    flags: listFlags,
    run: (_, f) =>
      Effect.gen(function* () {
        const query = yield* decode(Requests.ListTransactionsRequest)({
          ...optional("type", f.type),
          ...optional("status", f.status),
          ...optional("startDate", f["start-date"]),
          ...optional("endDate", f["end-date"]),
          ...optional("page", f.page),
          ...optional("limit", f.limit)
        })
        const who = yield* caller(f.merchant, f.mode as Mode)
        const page = yield* Effect.flatMap(Engine.Engine, (engine) => engine.transactions.list(who, query))
        const rows = page.data.map((t) => [
          t.id,
          t.type,
          t.status,
          reais(t.amount),
          reais(t.feeAmount),
          reais(t.netAmount),
          t.createdAt
        ])
        return new Readable(
          page,
          `${table(["ID", "TYPE", "STATUS", "AMOUNT", "FEE", "NET", "CREATED"], rows, "(no transactions)")}` +
            `page ${page.page} of ${Math.max(page.pages, 1)}, ${page.total} transaction${page.total === 1 ? "" : "s"}\n`
        )
      })
  })
}
