/**
 * The panel's signed-in routes as one table: method, path pattern, what the role must allow,
 * the audit entry a successful POST appends, and the page module's handler. `Router.ts` finds a
 * request's route here and applies the table's checks before calling it.
 */
import type { Audit, PanelRoles } from "@pixgate/core"
import type { Handler, Signed } from "./Ctx.js"
import * as Access from "./pages/Access.js"
import * as Account from "./pages/Account.js"
import * as Charges from "./pages/Charges.js"
import * as Customers from "./pages/Customers.js"
import * as Detail from "./pages/Detail.js"
import * as Infractions from "./pages/Infractions.js"
import * as Keys from "./pages/Keys.js"
import * as Links from "./pages/Links.js"
import * as Overview from "./pages/Overview.js"
import * as Payouts from "./pages/Payouts.js"
import * as Receipts from "./pages/Receipts.js"
import * as Refunds from "./pages/Refunds.js"
import * as Subscriptions from "./pages/Subscriptions.js"
import * as Team from "./pages/Team.js"
import * as Transactions from "./pages/Transactions.js"
import * as WebhookForms from "./pages/WebhookForms.js"
import * as WebhookOps from "./pages/WebhookOps.js"
import * as Webhooks from "./pages/Webhooks.js"

/** A signed-in route: method, path pattern (its groups are the handler's parameters), handler. */
export interface Route {
  readonly method: "GET" | "POST"
  readonly path: RegExp
  /** Only for the panel's own users (not when the platform signs people in). */
  readonly ownUsers?: true
  /** What the user's role must allow (`PanelRoles`); reading otherwise. */
  readonly need?: PanelRoles.Action
  /** The audit entry a successful POST appends (its object: the first path parameter, or the id it redirects to). */
  readonly audit?: Audit.AuditAction
  /** The action happens on the confirmed POST only (`confirm=yes`); the first shows a confirmation. */
  readonly confirmed?: true
  readonly handle: (s: Signed, params: ReadonlyArray<string>, fields: URLSearchParams) => Handler
}

const id = "([^/]+)"
const at = (pattern: string) => new RegExp(`^${pattern}$`)
const param = (params: ReadonlyArray<string>, i: number) => params[i] ?? ""

const routes: ReadonlyArray<Route> = [
  { method: "GET", path: at("/"), handle: (s) => Overview.overview(s) },
  { method: "GET", path: at("/transactions"), handle: (s) => Transactions.list(s) },
  { method: "GET", path: at("/transactions\\.csv"), handle: (s) => Transactions.csv(s) },
  { method: "GET", path: at("/transactions\\.ofx"), handle: (s) => Transactions.ofx(s) },
  { method: "GET", path: at(`/transactions/${id}`), handle: (s, p) => Detail.detail(s, param(p, 0)) },
  {
    method: "GET",
    path: at(`/transactions/${id}/receipt`),
    handle: (s, p) => Receipts.receipt(s, param(p, 0))
  },
  {
    method: "GET",
    path: at(`/transactions/${id}/receipt\\.pdf`),
    handle: (s, p) => Receipts.receiptPdf(s, param(p, 0))
  },
  {
    method: "GET",
    path: at(`/transactions/${id}/refunds/${id}/receipt\\.pdf`),
    handle: (s, p) => Receipts.refundPdf(s, param(p, 0), param(p, 1))
  },
  { method: "GET", path: at("/statement\\.pdf"), handle: (s) => Receipts.statementPdf(s) },
  {
    method: "GET",
    path: at(`/transactions/${id}/status`),
    handle: (s, p) => Receipts.status(s, param(p, 0))
  },
  { method: "GET", path: at("/charges"), handle: (s) => Charges.page(s) },
  ...Links.routes,
  ...Customers.routes,
  ...Infractions.routes,
  ...Subscriptions.routes,
  { method: "GET", path: at("/payouts"), handle: (s) => Payouts.page(s) },
  { method: "GET", path: at("/keys"), handle: (s) => Keys.page(s) },
  {
    method: "GET",
    path: at(`/keys/${id}/revoke`),
    need: "key.manage",
    handle: (s, p) => Keys.revokePage(s, param(p, 0))
  },
  { method: "GET", path: at("/webhooks"), handle: (s) => Webhooks.page(s) },
  { method: "GET", path: at("/password"), ownUsers: true, handle: (s) => Account.passwordPage(s) },
  { method: "POST", path: at("/signout"), ownUsers: true, handle: (s) => Account.signOut(s) },
  {
    method: "POST",
    path: at("/charges"),
    need: "charge.create",
    audit: "charge.create",
    handle: (s, _, f) => Charges.create(s, f)
  },
  {
    method: "POST",
    path: at(`/transactions/${id}/pay`),
    need: "charge.create",
    handle: (s, p, f) => Detail.payNow(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/transactions/${id}/refunds/review`),
    need: "refund.create",
    handle: (s, p, f) => Refunds.review(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/transactions/${id}/refunds`),
    need: "refund.create",
    audit: "refund.create",
    handle: (s, p, f) => Refunds.create(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/events/${id}/redeliver`),
    need: "webhook.manage",
    audit: "webhook.redeliver",
    handle: (s, p, f) => Detail.redeliver(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at("/payouts/review"),
    need: "payout.create",
    handle: (s, _, f) => Payouts.review(s, f)
  },
  {
    method: "POST",
    path: at("/payouts"),
    need: "payout.create",
    audit: "payout.create",
    handle: (s, _, f) => Payouts.create(s, f)
  },
  {
    method: "POST",
    path: at("/keys"),
    need: "key.manage",
    audit: "key.create",
    handle: (s, _, f) => Keys.create(s, f)
  },
  {
    method: "POST",
    path: at(`/keys/${id}/revoke`),
    need: "key.manage",
    audit: "key.revoke",
    handle: (s, p, f) => Keys.revoke(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at("/webhooks"),
    need: "webhook.manage",
    audit: "webhook.set",
    handle: (s, _, f) => WebhookForms.setWebhook(s, f)
  },
  {
    method: "POST",
    path: at("/webhooks/rotate"),
    need: "webhook.manage",
    audit: "webhook.rotate",
    confirmed: true,
    handle: (s, _, f) => WebhookForms.rotateSecret(s, f)
  },
  {
    method: "POST",
    path: at("/webhooks/signing-key"),
    need: "webhook.manage",
    audit: "webhook.rotate",
    confirmed: true,
    handle: (s, _, f) => WebhookForms.rotateSigningKey(s, f)
  },
  {
    method: "POST",
    path: at("/webhooks/reveal"),
    need: "webhook.manage",
    audit: "webhook.secret-reveal",
    handle: (s, _, f) => WebhookForms.reveal(s, f)
  },
  {
    method: "POST",
    path: at("/webhooks/resend"),
    need: "webhook.manage",
    handle: (s, _, f) => WebhookOps.resend(s, f)
  },
  {
    method: "POST",
    path: at("/webhooks/enable"),
    need: "webhook.manage",
    handle: (s) => WebhookOps.enable(s)
  },
  {
    method: "POST",
    path: at("/webhooks/test"),
    need: "webhook.manage",
    handle: (s, _, f) => WebhookForms.testEvent(s, f)
  },
  {
    method: "POST",
    path: at("/password"),
    ownUsers: true,
    handle: (s, _, f) => Account.changePassword(s, f)
  },
  // Access: second factor, sessions, audit log.
  { method: "GET", path: at("/security"), ownUsers: true, handle: (s) => Access.securityPage(s) },
  { method: "POST", path: at("/security/enrol"), ownUsers: true, handle: (s) => Access.enrol(s) },
  {
    method: "POST",
    path: at("/security/confirm"),
    ownUsers: true,
    handle: (s, _, f) => Access.confirm(s, f)
  },
  {
    method: "POST",
    path: at("/security/disable"),
    ownUsers: true,
    handle: (s, _, f) => Access.disable(s, f)
  },
  { method: "GET", path: at("/sessions"), ownUsers: true, handle: (s) => Access.sessionsPage(s) },
  {
    method: "POST",
    path: at("/sessions/revoke"),
    ownUsers: true,
    handle: (s, _, f) => Access.revokeSession(s, f)
  },
  // Team (owners) and each user's notification choices: pages/Team.ts.
  ...Team.routes,
  { method: "GET", path: at("/audit"), need: "audit.read", handle: (s) => Access.auditPage(s) },
  { method: "GET", path: at("/audit\\.csv"), need: "audit.read", handle: (s) => Access.auditCsv(s) }
]

/** The route for a signed-in request, with its path parameters. */
export const find = (method: "GET" | "POST", path: string, ownUser: boolean) => {
  for (const route of routes) {
    if (route.method !== method || (route.ownUsers === true && !ownUser)) continue
    const match = route.path.exec(path)
    if (match !== null) return { route, params: match.slice(1) }
  }
  return undefined
}
