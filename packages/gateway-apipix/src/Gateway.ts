/**
 * The live bank gateway: the Central Bank's API Pix standard (`standard/`) with a PSP's profile
 * on top (`Profile.ts`; Efí's by default, `efi/`), as one `BankGatewayShape`. Every rule of the
 * engine holds: an outcome the gateway cannot know (time-out, reset, 5xx, refused token) is never
 * taken for a failure of a send; a charge whose creation had such an outcome answers 502 and is
 * found out (`charge.unknown`).
 *
 * - Charges: `standard/Cob.ts`; a creation with an unknown outcome leaves an `apipix.cob.unknown`
 *   job (`standard/UnknownCharges.ts`) that withdraws a cob no charge adopted.
 * - Sends: the profile's (Efí: `efi/Sends.ts`).
 * - Callbacks (`{ "pix": [...] }`) carry no signature: each PIX is confirmed with
 *   `GET /pix/{e2eid}` (`standard/Pix.ts`), each send with its status, before anything is done.
 * - Jobs: `apipix.cob.check` per live charge, `apipix.reconcile` (`standard/Reconcile.ts`),
 *   `apipix.pix.return` (`standard/Returns.ts`: a PIX the engine did not credit goes back).
 * - Refunds: `standard/Devolucao.ts`.
 * - MED infractions: the profile's (Efí: `efi/Infractions.ts`, the `apipix.infractions` job and
 *   the answer's `defesa`); MED devoluções in `/pix` callbacks and reconciliation are the
 *   standard's (`standard/Pix.ts`).
 * - Pix Automático (`recurring`): `standard/Recurring.ts` (`/locrec`, `/rec`, `/solicrec`,
 *   `/cobr`, retries), its callbacks and webhooks `standard/RecurringCallbacks.ts`.
 */
import type { BankGateway, RecurringGateway } from "@pixgate/core"
import { Effect } from "effect"
import * as Efi from "./efi/Efi.js"
import * as Profile from "./Profile.js"
import type { ApiPixSettings } from "./Settings.js"
import type { PspClient } from "./standard/Client.js"
import * as Cob from "./standard/Cob.js"
import * as Devolucao from "./standard/Devolucao.js"
import * as Pix from "./standard/Pix.js"
import * as Reconcile from "./standard/Reconcile.js"
import * as Recurring from "./standard/Recurring.js"
import * as RecurringCallbacks from "./standard/RecurringCallbacks.js"
import * as Returns from "./standard/Returns.js"
import * as Setup from "./standard/Setup.js"
import * as UnknownCharges from "./standard/UnknownCharges.js"
import { record } from "./standard/Wire.js"

export { idEnvio, payoutIdOf } from "./efi/Sends.js"
export type { Findings } from "./standard/Reconcile.js"
export { devolucaoId } from "./standard/Returns.js"
export { jobKinds, reconcileJobId } from "./standard/Setup.js"
export { cents } from "./standard/Wire.js"

/** Timers the gateway writes with a change: a charge's checks, a PIX's return, an unknown charge's withdrawal. */
const timers =
  (setup: Setup.Setup): BankGateway.BankGatewayShape["timers"] =>
  (moment, subject, ref, now) => {
    switch (moment) {
      case "charge.created":
        return [
          Setup.job(
            Setup.jobKinds.cobCheck,
            ref,
            now + Math.min(setup.interval, Math.max(1000, (subject.expiresAt ?? now) - now))
          )
        ]
      case "payment.returned":
        return [Setup.job(Setup.jobKinds.pixReturn, ref, now)]
      case "charge.unknown":
        return subject.txid === null
          ? []
          : [
              Setup.job(
                subject.dueTerms === null ? Setup.jobKinds.cobUnknown : Setup.jobKinds.cobvUnknown,
                subject.txid,
                now + setup.unknownWindow
              )
            ]
      default:
        return []
    }
  }

/** A callback's items: the profile's (a send's) first, else a received PIX. */
const callback =
  (
    setup: Setup.Setup,
    sends: Profile.Sends | undefined,
    recurring: RecurringGateway.RecurringGateway
  ): NonNullable<BankGateway.BankGatewayShape["callback"]> =>
  (cb, ctx) =>
    Effect.gen(function* () {
      // Pix Automático: `<url>/rec` and `<url>/cobr` (standard/RecurringCallbacks.ts).
      if (RecurringCallbacks.isRecurring(cb.path))
        return yield* RecurringCallbacks.callback(recurring, cb, ctx)
      const items = record(cb.body).pix
      if (!Array.isArray(items)) return
      for (const item of items) {
        const r = record(item)
        if (sends !== undefined && (yield* sends.callbackItem(r, ctx))) continue
        yield* Pix.received(setup, r, ctx)
      }
    })

/** The gateway over one PSP client, with `profile`'s extensions (Efí's by default). */
export const make = (
  settings: ApiPixSettings,
  psp: PspClient,
  profile: Profile.PspProfile = Efi.profile
): RecurringGateway.RecurringBankGateway => {
  const setup = Setup.make(settings, psp, profile.apiPixPath)
  const sends = profile.sends?.(setup)
  const recurring = Recurring.make(setup)
  const infractions = profile.infractions?.(setup)
  return {
    capabilities: Profile.capabilities(profile),
    createCharge: Cob.create(setup),
    ...(sends === undefined ? {} : { sender: sends.sender }),
    ...(infractions === undefined ? {} : { infractionDefence: infractions.defence }),
    refunder: Devolucao.refunder(setup),
    timers: timers(setup),
    jobs: {
      [Setup.jobKinds.cobCheck]: Cob.check(setup),
      [Setup.jobKinds.reconcile]: Reconcile.run(setup),
      [Setup.jobKinds.pixReturn]: Returns.run(setup),
      [Setup.jobKinds.cobUnknown]: UnknownCharges.runner(setup),
      [Setup.jobKinds.cobvUnknown]: UnknownCharges.runner(setup, "cobv"),
      ...infractions?.jobs
    },
    start: (ctx) =>
      Effect.all([
        Reconcile.start(ctx),
        infractions === undefined ? Effect.void : infractions.start(ctx),
        RecurringCallbacks.start(recurring, settings.recurringWebhookUrl)
      ]).pipe(Effect.asVoid),
    callback: callback(setup, sends, recurring),
    recurring
  }
}
