/**
 * A local Asaas (API v3) for live tests: HTTPS with the test CA's server certificate (Asaas has
 * no client certificates), the `access_token` header, customers, Pix charges and their QR codes,
 * transfers to Pix keys, refunds, webhook configurations and their events with the
 * `asaas-access-token` header, and the simulator's faults (latency, an error status, 429 with
 * `RateLimit-Reset`, a reset connection, no answer), before the work or after it.
 */
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import type { CallbackMode } from "../Callbacks.js"
import { shared, type TestPki } from "../Certificates.js"
import { type Fault, Faults } from "../Faults.js"
import { Account, type PayOptions, type RefundOutcome, type TransferOutcome } from "./Account.js"
import { type EventDelivery, Events, type HeldEvent } from "./Events.js"
import { type AsaasRequestRecord, makeHandler } from "./Handler.js"
import { type AsaasState, emptyState, type Payment, type PixTransaction, type Transfer } from "./Model.js"
import { paymentRoutes } from "./PaymentRoutes.js"
import type { AsaasRouteName } from "./Route.js"
import { transferRoutes } from "./TransferRoutes.js"

export type { PayOptions, RefundOutcome, TransferOutcome } from "./Account.js"
export type { EventDelivery, HeldEvent } from "./Events.js"
export type { AsaasRequestRecord } from "./Handler.js"
export type {
  AsaasState,
  Customer,
  Payment,
  PixTransaction,
  Refund,
  Transfer,
  WebhookConfig
} from "./Model.js"
export type { AsaasRouteName } from "./Route.js"

/** Options of `start`; every one has a default. */
export interface AsaasSimulatorOptions {
  /** Interface and port (default `127.0.0.1`, any free port). */
  readonly host?: string
  readonly port?: number
  /** The API key every call must send as `access_token` (default a fixed test key). */
  readonly apiKey?: string
  /** The account's balance at start, in centavos (default R$ 1,000,000.00). */
  readonly balance?: number
  /** Asaas's fee on each received Pix, in centavos (default 0). */
  readonly pixFee?: number
  /** What happens to a new transfer without a control call (default `"manual"`: it waits). */
  readonly transferOutcome?: TransferOutcome
  /** What happens to a new refund (default `"done"`: `DONE` right after the answer). */
  readonly refundOutcome?: RefundOutcome
  /** How events are delivered unless a control call says otherwise (default `"now"`). */
  readonly eventMode?: CallbackMode
  /** Retries of a failed event delivery (default 0) and the wait between them (default 1000 ms). */
  readonly eventRetries?: number
  readonly eventRetryDelayMs?: number
  /** Identical transfers within this window are refused with 409 (default 15 min, as Asaas). */
  readonly duplicateWindowMs?: number
  /** The ISPB inside end-to-end ids (default `19540550`, Asaas's). */
  readonly ispb?: string
  /** Certificates (default: the process's shared test set). */
  readonly pki?: TestPki
  /** The clock (default: the system clock). */
  readonly now?: () => Date
}

/** A running simulated Asaas. */
export interface AsaasSimulator {
  /** Base URL of the API, e.g. `https://127.0.0.1:8443/v3`. */
  readonly url: string
  readonly apiKey: string
  /** The test CA that signs the server's certificate. */
  readonly caPem: string
  /** The account (read it; change it through the methods below). */
  readonly state: AsaasState
  readonly requests: ReadonlyArray<AsaasRequestRecord>
  readonly deliveries: ReadonlyArray<EventDelivery>
  readonly held: ReadonlyArray<HeldEvent>
  /** Registers a customer (e.g. the one charges without a payer are made out to); its id. */
  createCustomer(name: string, cpfCnpj: string): string
  /** The payment whose `externalReference` is `reference` (the engine's txid), if any. */
  paymentOf(reference: string): Payment | undefined
  /** The transfer whose `externalReference` is `reference` (the engine's payout id), if any. */
  transferOf(reference: string): Transfer | undefined
  /** A payer pays a payment (`PAYMENT_RECEIVED`, or `PAYMENT_CONFIRMED` with `status: "CONFIRMED"`). */
  pay(paymentId: string, options?: PayOptions): Promise<PixTransaction>
  /** Ends a precautionary block: `CONFIRMED` becomes `RECEIVED`. */
  receive(paymentId: string, events?: CallbackMode): Promise<void>
  /** Settles a transfer (`DONE`, with its end-to-end id) and emits `TRANSFER_DONE`. */
  settleTransfer(id: string, events?: CallbackMode): Promise<Transfer>
  /** Fails a transfer (`FAILED`, with `failReason`; its money returns) and emits `TRANSFER_FAILED`. */
  failTransfer(id: string, failReason?: string, events?: CallbackMode): Promise<Transfer>
  /** Changes what happens to new transfers and refunds. */
  setTransferOutcome(outcome: TransferOutcome): void
  setRefundOutcome(outcome: RefundOutcome): void
  /** Changes how events are delivered, and delivers the held ones. */
  setEventMode(mode: CallbackMode): void
  releaseEvents(order?: "held" | "reverse"): Promise<void>
  addFault(fault: Fault<AsaasRouteName>): void
  clearFaults(): void
  close(): Promise<void>
}

const listen = (server: https.Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve((server.address() as AddressInfo).port)
    })
  })

/** What the control calls change while the simulator runs. */
interface Outcomes {
  transfer: TransferOutcome
  refund: RefundOutcome
  events: CallbackMode
}

/** The account, its state and its event sender, as `options` set them up. */
const accountOf = (options: AsaasSimulatorOptions, now: () => Date, caPem: string, outcomes: Outcomes) => {
  const state = emptyState(options.balance ?? 100_000_000)
  const events = new Events({
    state,
    now,
    retries: options.eventRetries ?? 0,
    retryDelayMs: options.eventRetryDelayMs ?? 1000,
    timeoutMs: 10_000,
    ca: caPem
  })
  const settings = {
    ispb: options.ispb ?? "19540550",
    merchantName: "PIXGATE ASAAS SIMULADO",
    merchantCity: "JOINVILLE",
    locationHost: "pix.asaas.simulado",
    pixFee: options.pixFee ?? 0,
    duplicateWindowMs: options.duplicateWindowMs ?? 15 * 60_000,
    transferOutcome: () => outcomes.transfer,
    refundOutcome: () => outcomes.refund,
    eventMode: () => outcomes.events,
    now
  }
  return new Account(settings, state, events)
}

/** The simulator's control methods over its account. */
const controlsOf = (account: Account, faults: Faults<AsaasRouteName>, outcomes: Outcomes) => {
  const by = <A extends { readonly externalReference?: string }>(items: Iterable<A>, reference: string) =>
    [...items].find((item) => item.externalReference === reference)
  return {
    createCustomer: (name: string, cpfCnpj: string) =>
      account.createCustomer({ name, cpfCnpj, notificationDisabled: true }).id,
    paymentOf: (reference: string) => by(account.state.payments.values(), reference),
    transferOf: (reference: string) => by(account.state.transfers.values(), reference),
    pay: (paymentId: string, payOptions?: PayOptions) => account.pay(paymentId, payOptions),
    receive: (paymentId: string, mode?: CallbackMode) => account.receive(paymentId, mode),
    settleTransfer: (id: string, mode?: CallbackMode) =>
      account.decideTransfer(id, "DONE", mode === undefined ? {} : { events: mode }),
    failTransfer: (id: string, failReason?: string, mode?: CallbackMode) =>
      account.decideTransfer(id, "FAILED", {
        ...(failReason === undefined ? {} : { failReason }),
        ...(mode === undefined ? {} : { events: mode })
      }),
    setTransferOutcome: (outcome: TransferOutcome) => {
      outcomes.transfer = outcome
    },
    setRefundOutcome: (outcome: RefundOutcome) => {
      outcomes.refund = outcome
    },
    setEventMode: (mode: CallbackMode) => {
      outcomes.events = mode
    },
    releaseEvents: (order?: "held" | "reverse") => account.events.release(order),
    addFault: (fault: Fault<AsaasRouteName>) => faults.add(fault),
    clearFaults: () => faults.clear()
  }
}

/** Starts a simulated Asaas. */
export const start = async (options: AsaasSimulatorOptions = {}): Promise<AsaasSimulator> => {
  const host = options.host ?? "127.0.0.1"
  const pki = options.pki ?? shared()
  const apiKey = options.apiKey ?? "$aact_hmlg_pixgate_simulated_key"
  const outcomes: Outcomes = {
    transfer: options.transferOutcome ?? "manual",
    refund: options.refundOutcome ?? "done",
    events: options.eventMode ?? "now"
  }
  const account = accountOf(options, options.now ?? (() => new Date()), pki.caPem, outcomes)
  const timers = new Set<NodeJS.Timeout>()
  const faults = new Faults<AsaasRouteName>()
  const requests: Array<AsaasRequestRecord> = []
  const handler = makeHandler({
    routes: [...paymentRoutes, ...transferRoutes],
    account,
    faults,
    apiKey: () => apiKey,
    requests,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer)
          resolve()
        }, ms)
        timers.add(timer)
      })
  })
  const server = https.createServer(
    { key: pki.serverKeyPem, cert: pki.serverCertPem, minVersion: "TLSv1.2" },
    (request, response) => void handler(request, response)
  )
  const port = await listen(server, options.port ?? 0, host)
  return {
    url: `https://${host.includes(":") ? `[${host}]` : host}:${port}/v3`,
    apiKey,
    caPem: pki.caPem,
    state: account.state,
    requests,
    deliveries: account.events.deliveries,
    held: account.events.held,
    ...controlsOf(account, faults, outcomes),
    close: async () => {
      account.events.close()
      for (const timer of timers) clearTimeout(timer)
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
  }
}
