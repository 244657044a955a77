/**
 * The `pixgate` panel commands: each one's words, flags and positional arguments, checked
 * before it runs, and the engine admin operation it runs.
 */
import type { Engine, Errors } from "@pixgate/core"
import { Effect } from "effect"
import * as AdminInput from "./AdminInput.js"

/** A usage error: exit code 2. */
export class UsageError extends Error {}

/** Flag values by name. */
export type Flags = Readonly<Record<string, string | undefined>>
type Admin = Engine.EngineShape["admin"]

/** One command. */
export interface Command {
  readonly usage: string
  readonly required: ReadonlyArray<string>
  readonly optional?: ReadonlyArray<string>
  /** Names of positional arguments. */
  readonly args?: ReadonlyArray<string>
  readonly run: (
    admin: Admin,
    flags: Flags,
    args: ReadonlyArray<string>
  ) => Effect.Effect<unknown, Errors.PixgateError>
}

type Mode = "test" | "live"
type DeliveryStatus = "pending" | "delivered" | "failed"

// Each flag's format, checked before anything runs.
const formats: Readonly<Record<string, { readonly test: (v: string) => boolean; readonly message: string }>> =
  {
    mode: { test: (v) => v === "test" || v === "live", message: "--mode must be test or live" },
    status: {
      test: (v) => ["pending", "delivered", "failed"].includes(v),
      message: "--status must be pending, delivered or failed"
    },
    limit: { test: (v) => /^\d{1,9}$/.test(v), message: "--limit must be a non-negative integer" },
    plan: {
      test: (v) => {
        try {
          return typeof JSON.parse(v) === "object"
        } catch {
          return false
        }
      },
      message: "--plan must be a JSON object"
    }
  }

/** A number when the text is one (the engine then judges it), else the text itself. */
const amount = (text: string | undefined): unknown =>
  text !== undefined && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text

/** Every panel command by its words. */
export const commands: Readonly<Record<string, Command>> = {
  "merchant create": {
    usage: "merchant create --name NAME [--city CITY]",
    required: ["name"],
    optional: ["city"],
    run: (admin, f) =>
      admin.createMerchant({ name: f.name!, ...(f.city === undefined ? {} : { city: f.city }) })
  },
  "key create": {
    usage: "key create --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.createKey(f.merchant!, f.mode as Mode)
  },
  "key revoke": {
    usage: "key revoke KEY_ID",
    required: [],
    args: ["KEY_ID"],
    run: (admin, _, [id]) => admin.revokeKey(id!)
  },
  "key list": {
    usage: "key list --merchant ID",
    required: ["merchant"],
    run: (admin, f) => admin.listKeys(f.merchant!)
  },
  "webhook set": {
    usage: "webhook set --merchant ID --mode test|live --url URL --secret SECRET",
    required: ["merchant", "mode", "url", "secret"],
    run: (admin, f) =>
      admin.setWebhook({ merchantId: f.merchant!, mode: f.mode as Mode, url: f.url!, secret: f.secret! })
  },
  "webhook log": {
    usage: "webhook log --merchant ID [--mode test|live] [--status pending|delivered|failed] [--limit N]",
    required: ["merchant"],
    optional: ["mode", "status", "limit"],
    run: (admin, f) =>
      admin.webhookLog({
        merchantId: f.merchant!,
        ...(f.mode === undefined ? {} : { mode: f.mode as Mode }),
        ...(f.status === undefined ? {} : { status: f.status as DeliveryStatus }),
        ...(f.limit === undefined ? {} : { limit: Number(f.limit) })
      })
  },
  "webhook redeliver": {
    usage: "webhook redeliver EVENT_ID",
    required: [],
    args: ["EVENT_ID"],
    run: (admin, _, [id]) => admin.redeliver(id!)
  },
  balance: {
    usage: "balance --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.balance(f.merchant!, f.mode as Mode)
  },
  "fee-plan set": {
    usage: 'fee-plan set --merchant ID --plan \'{"charge":{...},"payout":{...}}\'',
    required: ["merchant", "plan"],
    run: (admin, f) =>
      Effect.flatMap(AdminInput.feePlan(JSON.parse(f.plan!), "plan"), (plan) =>
        admin.setFeePlan(f.merchant!, plan)
      )
  },
  "sandbox topup": {
    usage: "sandbox topup --merchant ID --amount N",
    required: ["merchant", "amount"],
    run: (admin, f) => admin.topUp(f.merchant!, amount(f.amount))
  },
  "sandbox pay": {
    usage: "sandbox pay TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxPayCharge(id!)
  },
  "sandbox settle": {
    usage: "sandbox settle TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxSettlePayout(id!)
  },
  "sandbox fail": {
    usage: "sandbox fail TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxFailPayout(id!)
  }
}

/** The help text. */
export const usage = (): string =>
  [
    "Usage: pixgate <command> [flags] [--json]",
    "",
    "  serve                     HTTP server (PORT, HOST, PIXGATE_DATABASE, PIXGATE_ADMIN_TOKEN, PIXGATE_LIVE_*)",
    "  gateway webhook register --url URL   Registers URL/bank/callbacks/<secret> with the live PSP (PIXGATE_LIVE_*)",
    ...Object.values(commands).map((c) => `  ${c.usage}`),
    "",
    "Every command uses PIXGATE_DATABASE (default sqlite:./data/pixgate.db) and prints JSON."
  ].join("\n")

/** Every flag any command takes (besides `--json` and `--help`). */
export const flagNames = [
  "name",
  "city",
  "merchant",
  "mode",
  "url",
  "secret",
  "status",
  "limit",
  "plan",
  "amount"
]

/** The command the positional words name, and its remaining arguments. */
export const find = (positionals: ReadonlyArray<string>) => {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(" ")
    const command = commands[name]
    if (command !== undefined) return { name, command, args: positionals.slice(words) }
  }
  throw new UsageError(`Unknown command: ${positionals.join(" ") || "(none)"}. Run pixgate --help`)
}

/** Checks flags and arguments before anything runs. */
export const check = (name: string, command: Command, flags: Flags, args: ReadonlyArray<string>) => {
  for (const flag of command.required) {
    if (flags[flag] === undefined)
      throw new UsageError(`Missing required flag --${flag} (pixgate ${command.usage})`)
  }
  const allowed = new Set([...command.required, ...(command.optional ?? [])])
  for (const [flag, value] of Object.entries(flags)) {
    if (value !== undefined && !allowed.has(flag))
      throw new UsageError(`pixgate ${name} does not take --${flag}`)
  }
  for (const [flag, value] of Object.entries(flags)) {
    const format = formats[flag]
    if (value !== undefined && format !== undefined && !format.test(value))
      throw new UsageError(format.message)
  }
  const expected = command.args?.length ?? 0
  if (args.length !== expected) throw new UsageError(`Usage: pixgate ${command.usage}`)
}
