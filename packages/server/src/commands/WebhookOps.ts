/**
 * Webhook operations: `webhook resend` (every failed delivery since a time, once per range, at
 * the engine's resend rate), `webhook health` and `webhook enable`, each the engine's
 * `webhookOps` operation of the same name.
 */
import { Engine } from "@pixgate/core"
import { Effect } from "effect"
import { command, type Flag } from "./Command.js"
import { mode as flagMode } from "./Flags.js"
import { fields, Readable, table, when } from "./Output.js"

type Mode = "test" | "live"

/** `--since` of `webhook resend`. */
const since: Flag = {
  value: "TIME",
  description: "resend deliveries made from this ISO 8601 date-time (e.g. 2026-12-01T00:00:00Z) that failed",
  test: (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && Number.isFinite(Date.parse(v)),
  message: "--since must be an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z"
}

const percent = (rate: number | null) => (rate === null ? "-" : `${(rate * 100).toFixed(1)}%`)

/** The webhook operations' commands by their words. */
export const webhookOpsCommands = {
  "webhook resend": command({
    summary:
      "Resends every failed delivery of a merchant (or of one endpoint with --mode) made since a time, through the job worker at a bounded rate; the same range again sends nothing twice.",
    examples: [
      "pixgate webhook resend --merchant mer_... --since 2026-12-01T00:00:00Z",
      "pixgate webhook resend --merchant mer_... --since 2026-12-01T00:00:00Z --mode live --json"
    ],
    usage: "webhook resend --merchant ID --since TIME [--mode test|live]",
    required: ["merchant", "since"],
    optional: ["mode"],
    flags: {
      since,
      mode: { ...flagMode, description: "only the endpoint of test or live events (default both)" }
    },
    run: (_, f) =>
      Effect.flatMap(Engine.Engine, (e) =>
        Effect.map(
          e.webhookOps.resend({ merchantId: f.merchant, since: f.since, mode: f.mode as Mode | undefined }),
          (r) =>
            new Readable(
              r,
              fields([
                ["resend", r.resendId],
                ["range", `${r.since} .. ${r.until} (${r.scope})`],
                [
                  "queued",
                  r.repeated
                    ? `0 (the same range was resent before: ${r.queuedFirst} then)`
                    : `${r.queued} at most ${r.ratePerSecond}/s, the last due ${when(r.lastDueAt)}`
                ]
              ])
            )
        )
      )
  }),
  "webhook health": command({
    summary:
      "Shows each endpoint's health over the last 24 hours: state, success rate, last success, failures in a row, p95 latency.",
    examples: [
      "pixgate webhook health --merchant mer_...",
      "pixgate webhook health --merchant mer_... --json"
    ],
    usage: "webhook health --merchant ID",
    required: ["merchant"],
    run: (_, f) =>
      Effect.flatMap(Engine.Engine, (e) =>
        Effect.map(
          e.webhookOps.health(f.merchant),
          (h) =>
            new Readable(
              h,
              table(
                [
                  "MODE",
                  "STATE",
                  "SUCCESS",
                  "ATTEMPTS",
                  "LAST SUCCESS",
                  "FAILURES IN A ROW",
                  "P95 MS",
                  "URL"
                ],
                h.endpoints.map((x) => [
                  x.mode,
                  x.state === "disabled" ? `disabled since ${when(x.disabledAt)}` : x.state,
                  percent(x.successRate),
                  String(x.attempts),
                  when(x.lastSuccessAt),
                  String(x.consecutiveFailures),
                  x.p95LatencyMs === null ? "-" : String(x.p95LatencyMs),
                  x.url
                ]),
                "(no webhook endpoints: pixgate webhook set)"
              )
            )
        )
      )
  }),
  "webhook enable": command({
    summary:
      "Enables an endpoint the engine disabled after it failed for too long: deliveries resume, and what it held is resent.",
    examples: ["pixgate webhook enable --merchant mer_... --mode live"],
    usage: "webhook enable --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (_, f) =>
      Effect.flatMap(Engine.Engine, (e) =>
        Effect.map(
          e.webhookOps.enable(f.merchant, f.mode as Mode),
          (r) =>
            new Readable(
              r,
              r.wasDisabled
                ? `enabled the ${r.mode} endpoint (disabled at ${when(r.disabledAt)}); resend ${r.resend?.resendId ?? "-"} queued ${r.resend?.queued ?? 0}\n`
                : `the ${r.mode} endpoint was not disabled: nothing changed\n`
            )
        )
      )
  })
}
