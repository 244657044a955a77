/**
 * The money commands: `charge create`, `payout create` and `transactions list`. Each runs the
 * engine's own service (Charges, Payouts, Transactions) as the merchant's API key would, with
 * the HTTP API's request schemas (`Requests.CreateCharge`, `CreatePayout`,
 * `ListTransactionsRequest`): the same validation messages, the same fee rules, amounts read
 * into integer centavos by core's decoder. The caller is the merchant in the chosen mode, named
 * `panel:cli` (the operator at the command line, not one of its keys).
 */
import { Engine, Requests } from "@pixgate/core"
import { Effect } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { amount, mode as flagMode } from "./Flags.js"
import { amountOf, decode, jsonObject, optional } from "./Input.js"
import { fields, plus, Readable, reais, signed, table } from "./Output.js"

type Mode = "test" | "live"

/** The merchant `--merchant` names, calling in `--mode`, as its API key would. */
const caller = (merchantId: string, mode: Mode) =>
  Effect.flatMap(Engine.Engine, (engine) =>
    Effect.map(engine.admin.getMerchant(merchantId), (merchant) => ({
      merchant,
      mode,
      keyId: "panel:cli" as const
    }))
  )

const docFlag = (whose: string): Flag => ({
  value: "CPF|CNPJ",
  description: `the ${whose} CPF or CNPJ, formatted or digits only`
})

/** The flags of `charge create`. */
const chargeFlags: Readonly<Record<string, Flag>> = {
  mode: {
    ...flagMode,
    description: "test (the sandbox pays it 2-3 s later) or live (a real PIX through the bank)"
  },
  amount: amount(
    "what the payer pays, in reais, e.g. 25.90; the merchant is credited it less the charge fee once paid (docs/fees.md)"
  ),
  description: { value: "TEXT", description: "a note shown to the payer (at most 140 characters)" },
  "client-name": { value: "NAME", description: "the payer's name" },
  "client-doc": docFlag("payer's"),
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
  }
}

/** The flags of `payout create`. */
const payoutFlags: Readonly<Record<string, Flag>> = {
  mode: {
    ...flagMode,
    description: "test (the sandbox settles it 2-3 s later) or live (real money through the bank)"
  },
  amount: amount(
    "what the recipient receives, in reais, e.g. 10; the balance falls by it plus the payout fee (docs/fees.md)"
  ),
  "pix-key": {
    value: "KEY",
    description: "the recipient's PIX key: CPF, CNPJ, e-mail, phone (+55...) or random key (EVP)"
  },
  description: { value: "TEXT", description: "a note kept with the payout (at most 140 characters)" },
  "client-name": { value: "NAME", description: "the recipient's name" },
  "client-doc": docFlag("recipient's")
}

/** The flags of `transactions list`: the API's query parameters, checked by its schema. */
const listFlags: Readonly<Record<string, Flag>> = {
  mode: { ...flagMode, description: "the transactions of test (sandbox) or live money" },
  type: {
    value: "TYPE",
    description: "only transactions of this type: deposit (charges), withdrawal (payouts) or payment"
  },
  status: {
    value: "STATUS",
    description: "only transactions in this status: pending, completed, failed or refunded"
  },
  "start-date": { value: "YYYY-MM-DD", description: "only transactions from this day on (UTC)" },
  "end-date": { value: "YYYY-MM-DD", description: "only transactions up to this day, inclusive (UTC)" },
  page: { value: "N", description: "the page, from 1 (default 1)" },
  limit: { value: "N", description: "transactions per page (default 20, at most 100)" }
}

/**
 * What a transaction moves in the merchant's available balance once completed: a charge adds its
 * net amount, a payout takes its amount plus its fee; a payment (between two merchants) shows none.
 */
const balanceChange = (t: { type: string; amount: number; feeAmount: number; netAmount: number }) =>
  t.type === "deposit"
    ? signed(t.netAmount)
    : t.type === "withdrawal"
      ? signed(-plus(t.amount, t.feeAmount))
      : "-"

/** `{ [key]: the JSON value }`, or nothing when the flag was left out (its value was checked to be JSON). */
const optionalJson = (key: string, value: string | undefined): Record<string, unknown> =>
  value === undefined ? {} : { [key]: JSON.parse(value) }

/** `{ [key]: the number }` when the text is one (else the text, for the decoder to refuse), or nothing. */
const optionalNumber = (key: string, value: string | undefined): Record<string, unknown> =>
  value === undefined ? {} : { [key]: amountOf(value) }

/** Every money command by its words. */
export const moneyCommands: Readonly<Record<string, Command>> = {
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
    flags: chargeFlags,
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
            ["status", charge.status],
            ["amount", reais(charge.amount)],
            ["fee", reais(charge.fees.feeAmount)],
            ["credited when paid", reais(charge.fees.netAmount)],
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
    flags: payoutFlags,
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
            ["recipient gets", reais(payout.amount)],
            ["fee", reais(payout.fees.feeAmount)],
            ["balance debited", reais(plus(payout.amount, payout.fees.feeAmount))],
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
          balanceChange(t),
          t.createdAt
        ])
        return new Readable(
          page,
          `${table(["ID", "TYPE", "STATUS", "AMOUNT", "FEE", "BALANCE +/-", "CREATED"], rows, "(no transactions)")}` +
            `page ${page.page} of ${Math.max(page.pages, 1)}, ${page.total} transaction${page.total === 1 ? "" : "s"}\n`
        )
      })
  })
}
