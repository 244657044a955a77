/**
 * What every part of the standard gateway works from: the settings, the PSP client, where the
 * API Pix routes live (the settings' path, else the PSP profile's), the intervals with their
 * defaults filled in, and the job kinds the gateway registers.
 */
import { Domain, Ids } from "@pixgate/core"
import { type ApiPixSettings, defaults } from "../Settings.js"
import type { PspClient } from "./Client.js"

/** Job kinds the gateway registers. */
export const jobKinds = {
  cobCheck: "apipix.cob.check",
  reconcile: "apipix.reconcile",
  pixReturn: "apipix.pix.return",
  cobUnknown: "apipix.cob.unknown",
  cobvUnknown: "apipix.cobv.unknown",
  /** A profile's MED infractions (Efí's `GET /v2/gn/infracoes`). */
  infractions: "apipix.infractions"
} as const

/** The settings and the client, with every default applied. */
export interface Setup {
  readonly settings: ApiPixSettings
  readonly psp: PspClient
  /** The API Pix path prefix, without a trailing slash (`/v2`). */
  readonly pix: string
  /** Wait before asking again about a send or a refund not final yet (ms). */
  readonly pollDelay: number
  /** Reconciliation interval, also the pace of a pending charge's checks (ms). */
  readonly interval: number
  /** How far back reconciliation reads received PIX (ms). */
  readonly window: number
  /** How long a charge with an unknown outcome waits for its client's retry (ms). */
  readonly unknownWindow: number
}

/** The setup of `settings` over `psp`; `apiPixPath` is the profile's, used when the settings name none. */
export const make = (settings: ApiPixSettings, psp: PspClient, apiPixPath: string): Setup => ({
  settings,
  psp,
  pix: (settings.apiPixPath ?? apiPixPath).replace(/\/+$/, ""),
  pollDelay: settings.pollDelayMs ?? defaults.pollDelayMs,
  interval: settings.reconcileIntervalMs ?? defaults.reconcileIntervalMs,
  window: settings.reconcileWindowMs ?? defaults.reconcileWindowMs,
  unknownWindow: settings.unknownChargeWindowMs ?? defaults.unknownChargeWindowMs
})

/** A job of the gateway's, due at `runAt`. */
export const job = (kind: string, ref: string, runAt: number): Domain.Job => ({
  id: Ids.jobId(runAt),
  kind,
  ref,
  runAt
})

/** The one reconciliation job's id: every instance seeds the same row, so there is one. */
export const reconcileJobId: Domain.JobId = Domain.JobId.make("job_apipix_reconcile")
