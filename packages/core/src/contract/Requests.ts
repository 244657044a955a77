/**
 * Every request body and query of the public API and the admin API as an `effect/Schema`: the
 * Encoded side is the JSON (or query string) the client sends, the Type side the typed input the
 * engine's services take. Each check carries the code and message of docs/decisions.md as a
 * `Problem` annotation; `decode` turns a failure into the API's validation error.
 *
 * Unknown fields are accepted and ignored (a documented choice, docs/decisions.md "Request
 * schemas and typed errors"): clients written against an older or newer version keep working.
 *
 * The schemas live in `requests/`, one module per audience; this module is the one the index
 * exports (`Requests.X`) and re-exports each of them by name:
 * - `requests/Problems.ts`: the `Problem` annotation, first-problem-only, the maximum amount;
 * - `requests/Shared.ts`: the field schemas both APIs use (amounts, texts, documents, PIX keys);
 * - `requests/Public.ts`: the public API's (`/api/v1`) charge, payout and list requests;
 * - `requests/Admin.ts`: the admin API's (and the CLI's) requests, the sandbox's included;
 * - `requests/Refunds.ts`: the refunds' (a feature's requests in a module of its own);
 * - `requests/DueDateCharges.ts`: the due-date fields of a charge request and its example;
 * - `requests/Decode.ts`: decoding a request into its typed input or the validation error.
 */

export {
  AuditQuery,
  CreateKey,
  CreateMerchant,
  DeliveriesQuery,
  ErasePayer,
  FeePlanInput,
  feePlan,
  InvitePanelUser,
  Mode,
  ModeParameter,
  OpenChargeback,
  oneOf,
  PanelResetLink,
  paidAtOf,
  ResolveChargeback,
  RotateSigningKey,
  SandboxPay,
  SetWebhook,
  TopUp
} from "./requests/Admin.js"
export {
  type DecodeOptions,
  decode,
  decodeEither,
  toValidationError
} from "./requests/Decode.js"
export { dueChargeExample, dueDateFields } from "./requests/DueDateCharges.js"
export {
  FirstProblemOnlyId,
  MaxAmount,
  type Problem,
  ProblemId,
  problem,
  required
} from "./requests/Problems.js"
export {
  CreateCharge,
  CreatePayout,
  ListTransactions,
  ListTransactionsQuery,
  ListTransactionsRequest,
  pageSize
} from "./requests/Public.js"
export { CreateRefund } from "./requests/Refunds.js"
export {
  amount,
  Cents,
  ClientDocument,
  checkAmount,
  ExpiresIn,
  expiresInRange,
  maxText,
  optionalField,
  PixKeyField,
  PixKeyValue,
  parseDay,
  text
} from "./requests/Shared.js"
