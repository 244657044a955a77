/**
 * The JSON of the admin tokens (the CLI's `admin-token` commands) and of the admin audit log
 * (`GET /admin/audit-log`, `pixgate admin-audit list`). A token itself appears only in
 * `CreatedAdminToken`, once.
 */
import { Schema } from "effect"
import { adminScopes } from "../domain/AdminAccess.js"
import { DateTime } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"
const exampleId = "atk_01JD8Z3Q7W5K2M9N4P6R8T0V2A"

/** An admin token's scope. */
export const AdminScope = Schema.Literal(...adminScopes).annotations({
  description:
    "`read-only` (admin API reads and /metrics), `operator` (also redelivery, test events, sandbox actions), " +
    "`full` (everything), `metrics` (/metrics only)"
})

/** A stored admin token, never the token itself. */
export const AdminToken = Schema.Struct({
  id: Schema.String.annotations({ description: "`atk_...`" }),
  name: Schema.String,
  scope: AdminScope,
  hint: Schema.String.annotations({ description: "The token's last four characters" }),
  createdAt: DateTime,
  revokedAt: Schema.NullOr(DateTime),
  lastUsedAt: Schema.NullOr(DateTime).annotations({
    description:
      "When it last authenticated a request (to the minute): a rotation is done when the old one stops"
  })
}).annotations({ identifier: "AdminToken", description: "An admin token (never the token itself)" })

/** A new admin token, the only time it is shown. */
export const CreatedAdminToken = Schema.Struct({
  ...AdminToken.fields,
  token: Schema.String.annotations({ description: "`pxa_...`: shown only now; only its SHA-256 is stored" })
}).annotations({
  identifier: "CreatedAdminToken",
  examples: [
    {
      id: exampleId,
      name: "deploy",
      scope: "operator",
      hint: "Xy7Q",
      createdAt: exampleTime,
      revokedAt: null,
      lastUsedAt: null,
      token: "pxa_EXAMPLEexampleEXAMPLEexampleEXAMPLEexXy7Q"
    }
  ]
})

/** Every admin token, revoked ones too, oldest first. */
export const AdminTokenList = Schema.Struct({ data: Schema.Array(AdminToken) }).annotations({
  identifier: "AdminTokenList"
})

/** One write through the admin API (or a token change by the CLI). */
export const AdminAuditEntry = Schema.Struct({
  id: Schema.String.annotations({ description: "`aad_...`" }),
  at: DateTime,
  actor: Schema.String.annotations({
    description: "The token's name (`env` for PIXGATE_ADMIN_TOKEN), or `cli` for a token change by the CLI"
  }),
  tokenId: Schema.NullOr(Schema.String).annotations({ description: "The stored token's id (`atk_...`)" }),
  operation: Schema.String.annotations({
    description:
      "The admin API operation (`createMerchant`, ...), or `admin-token.create` / `admin-token.revoke`"
  }),
  method: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String).annotations({ description: "The path, without the query" }),
  status: Schema.NullOr(Schema.Int).annotations({
    description: "What was answered, refusals included (403: the scope did not allow it)"
  }),
  objectId: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "AdminAuditEntry",
  description: "Who changed what through the admin API, and when"
})

/** A page of the admin audit log. */
export const AdminAuditLog = Schema.Struct({
  data: Schema.Array(AdminAuditEntry),
  next: Schema.NullOr(Schema.String).annotations({
    description: "Pass as `before` for the next (older) page; null on the last page"
  })
}).annotations({
  identifier: "AdminAuditLog",
  description: "The admin audit log, newest first",
  examples: [
    {
      data: [
        {
          id: "aad_01JD8Z3Q7W5K2M9N4P6R8T0V2F",
          at: exampleTime,
          actor: "deploy",
          tokenId: exampleId,
          operation: "createMerchant",
          method: "POST",
          path: "/admin/merchants",
          status: 201,
          objectId: null
        }
      ],
      next: null
    }
  ]
})
