/**
 * The people of a merchant's panel: `user invite`, `user reset-link` and `audit list`. The links
 * are printed whole (the panel's address plus the one-time path); the token alone never is.
 */
import { Requests } from "@pixgate/core"
import { Effect } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { limit } from "./Flags.js"
import { decode } from "./Input.js"
import { fields, Readable, table, when } from "./Output.js"

const defaultPanel = "http://127.0.0.1:3000/panel"

/** The whole link: the panel's address and the path the engine gave. */
const linkOf = (panel: string | undefined, path: string) =>
  `${(panel ?? defaultPanel).replace(/\/+$/, "")}${path}`

const role: Flag = {
  value: "ROLE",
  description:
    "the panel user's role: owner (everything), finance (payouts, refunds), developer (API keys, webhooks) or viewer (read only); default owner for the merchant's first user, viewer after",
  test: (v) => ["owner", "finance", "developer", "viewer"].includes(v),
  message: "--role must be owner, finance, developer or viewer"
}

const resetSecondFactor: Flag = {
  value: "yes|no",
  description: "also remove the user's second factor and recovery codes (a lost phone)",
  test: (v) => v === "yes" || v === "no",
  message: "--reset-2fa must be yes or no"
}

const before: Flag = {
  value: "AUDIT_ID",
  description: "only entries older than this one (the `next` the previous page printed)"
}

/** The panel user commands by their words. */
export const panelUserCommands: Readonly<Record<string, Command>> = {
  "user invite": command({
    summary:
      "Invites a person to a merchant's panel with a role: prints a one-time link (7 days) to set the password.",
    examples: [
      "pixgate user invite --merchant mer_... --email ana@example.com --panel https://pay.example.com/panel",
      "pixgate user invite --merchant mer_... --email bia@example.com --role finance"
    ],
    usage: "user invite --merchant ID --email EMAIL [--role owner|finance|developer|viewer] [--panel URL]",
    required: ["merchant", "email"],
    optional: ["role", "panel"],
    flags: { role },
    run: (admin, f) =>
      Effect.map(
        Effect.flatMap(
          decode(Requests.InvitePanelUser)({
            email: f.email,
            ...(f.role === undefined ? {} : { role: f.role })
          }),
          (invite) => admin.inviteUser(f.merchant, invite)
        ),
        ({ token: _, path, ...invite }) => {
          const json = { ...invite, link: linkOf(f.panel, path) }
          return new Readable(
            json,
            fields([
              ["user", json.userId],
              ["email", json.email],
              ["role", json.role],
              ["link", json.link],
              ["expires", json.expiresAt]
            ])
          )
        }
      )
  }),
  "user reset-link": command({
    summary:
      "Issues a one-time password reset link (1 hour) for a panel user; using it signs the user out everywhere.",
    examples: [
      "pixgate user reset-link --merchant mer_... --email ana@example.com --panel https://pay.example.com/panel",
      "pixgate user reset-link --merchant mer_... --email ana@example.com --reset-2fa yes"
    ],
    usage: "user reset-link --merchant ID --email EMAIL [--reset-2fa yes] [--panel URL]",
    required: ["merchant", "email"],
    optional: ["reset-2fa", "panel"],
    flags: { "reset-2fa": resetSecondFactor },
    run: (admin, f) =>
      Effect.map(
        Effect.flatMap(
          decode(Requests.PanelResetLink)({
            email: f.email,
            ...(f["reset-2fa"] === undefined ? {} : { resetSecondFactor: f["reset-2fa"] === "yes" })
          }),
          (input) => admin.resetLink(f.merchant, input)
        ),
        ({ token: _, path, ...link }) => {
          const json = { ...link, link: linkOf(f.panel, path) }
          return new Readable(
            json,
            fields([
              ["user", json.userId],
              ["email", json.email],
              ["link", json.link],
              ["expires", json.expiresAt],
              ["second factor removed", json.secondFactorReset ? "yes" : "no"]
            ])
          )
        }
      )
  }),
  "audit list": command({
    summary: "Prints a page of a merchant's panel audit log, newest first.",
    examples: [
      "pixgate audit list --merchant mer_... --limit 100",
      "pixgate audit list --merchant mer_... --json"
    ],
    usage: "audit list --merchant ID [--limit N] [--before AUDIT_ID]",
    required: ["merchant"],
    optional: ["limit", "before"],
    flags: { limit: limit("entries on the page (default 50, at most 500)"), before },
    run: (admin, f) =>
      Effect.flatMap(
        decode(Requests.AuditQuery)({
          ...(f.limit === undefined ? {} : { limit: f.limit }),
          ...(f.before === undefined ? {} : { before: f.before })
        }),
        (query) =>
          Effect.map(
            admin.auditLog(f.merchant, query),
            (log) =>
              new Readable(
                log,
                table(
                  ["TIME", "ACTOR", "ACTION", "OBJECT", "ADDRESS"],
                  log.data.map((e) => [e.at, e.actor, e.action, e.objectId ?? "-", when(e.address)]),
                  "(no entries)"
                ) + (log.next === null ? "" : `older entries: --before ${log.next}\n`)
              )
          )
      )
  })
}
