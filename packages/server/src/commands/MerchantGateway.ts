/**
 * A merchant's live gateway: `merchant-gateway show` shows which bank holds its live money (and a
 * change not in effect yet), `merchant-gateway set` assigns it to another of the server's
 * gateways. Setting needs `--server URL` (the running server knows which gateways it has; the
 * CLI alone does not load them), with `PIXGATE_ADMIN_TOKEN`.
 */
import { Domain, Engine, Errors } from "@pixgate/core"
import { Effect, Option } from "effect"
import { type Command, command, UsageError } from "./Command.js"
import { fields, Readable } from "./Output.js"
import { type RemoteFailure, request, type Server } from "./Remote.js"

/** What both commands print of a merchant's gateway (the admin API's body). */
interface Shown {
  readonly merchantId: string
  readonly gateway: string
  readonly isDefault: boolean
  readonly next: { readonly gateway: string; readonly effectiveAt: string } | null
  readonly history: ReadonlyArray<{ readonly gateway: string; readonly effectiveAt: string }>
}

const readable = (g: Shown) =>
  new Readable(
    g,
    fields([
      ["merchant", g.merchantId],
      ["gateway", `${g.gateway}${g.isDefault ? " (the default)" : ""}`],
      ...(g.next === null ? [] : ([["next", `${g.next.gateway} from ${g.next.effectiveAt}`]] as const)),
      ["assignments", String(g.history.length)]
    ])
  )

const needsAdmin = (server: Server) =>
  server.adminToken === undefined
    ? Effect.fail(new UsageError({ message: "--server needs PIXGATE_ADMIN_TOKEN (the admin API)" }))
    : Effect.void

const remote = (
  server: Server,
  method: "GET" | "PUT",
  merchant: string,
  body?: unknown
): Effect.Effect<Readable, UsageError | RemoteFailure> =>
  Effect.zipRight(
    needsAdmin(server),
    Effect.map(
      request(server, "admin", method, `/admin/merchants/${encodeURIComponent(merchant)}/gateway`, body),
      (answer) => readable(answer as Shown)
    )
  )

const serverFlag = {
  server: {
    value: "URL",
    description:
      "ask this running server's admin API (with PIXGATE_ADMIN_TOKEN) instead of the local database"
  }
}

/** The commands by their words. */
export const merchantGatewayCommands: Readonly<Record<string, Command>> = {
  "merchant-gateway show": command({
    summary: "Shows which live gateway (bank) holds a merchant's live money, and a change not in effect yet.",
    examples: [
      "pixgate merchant-gateway show --merchant mer_...",
      "pixgate merchant-gateway show --merchant mer_... --server http://127.0.0.1:3000"
    ],
    usage: "merchant-gateway show --merchant ID [--server URL]",
    required: ["merchant"],
    optional: ["server"],
    flags: serverFlag,
    run: (_, f) =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Option.match(Domain.idDecoder(Domain.MerchantId)(f.merchant), {
          onNone: () => Effect.fail(Errors.notFound("Merchant")),
          onSome: (id) =>
            Effect.map(engine.merchantGateways.get(id), (g) =>
              readable({
                ...g,
                next:
                  g.next === null
                    ? null
                    : { gateway: g.next.gateway, effectiveAt: new Date(g.next.effectiveAt).toISOString() },
                history: g.history.map((a) => ({
                  gateway: a.gateway,
                  effectiveAt: new Date(a.effectiveAt).toISOString()
                }))
              })
            )
        })
      ),
    remote: (server, f) => remote(server, "GET", f.merchant)
  }),
  "merchant-gateway set": command({
    summary:
      "Assigns a merchant's live money to one of the server's gateways, 5 seconds from now (or --effective-at); money in flight stays with its bank.",
    examples: [
      "pixgate merchant-gateway set --merchant mer_... --gateway asaas --server http://127.0.0.1:3000",
      "pixgate merchant-gateway set --merchant mer_... --gateway efi --effective-at 2027-01-01T03:00:00Z --server https://pixgate.example"
    ],
    usage: "merchant-gateway set --merchant ID --gateway NAME [--effective-at ISO] --server URL",
    required: ["merchant", "gateway"],
    optional: ["effective-at", "server"],
    flags: {
      ...serverFlag,
      gateway: {
        value: "NAME",
        description: "a live gateway's name, as GET /admin/gateways lists them (e.g. efi, asaas)"
      },
      "effective-at": {
        value: "ISO",
        description: "when it takes effect (ISO 8601), at least 5 seconds from now",
        test: (v) => !Number.isNaN(Date.parse(v)),
        message: "--effective-at must be an ISO 8601 date-time"
      }
    },
    run: () =>
      Effect.fail(
        new UsageError({
          message: "merchant-gateway set needs --server URL: the running server knows which gateways it has"
        })
      ),
    remote: (server, f) =>
      remote(server, "PUT", f.merchant, {
        gateway: f.gateway,
        ...(f["effective-at"] === undefined ? {} : { effectiveAt: f["effective-at"] })
      })
  })
}
