import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { apiPixRoutes } from "./ApiPix.js"
import { Bank, type DecideOptions, type PayOptions, type RefundOutcome, type SendOutcome } from "./Bank.js"
import { type CallbackDelivery, type CallbackMode, Callbacks, type HeldCallback } from "./Callbacks.js"
import { generatePki, shared, type TestPki } from "./Certificates.js"
import { makeControlHandler } from "./Control.js"
import { type Fault, Faults } from "./Faults.js"
import {
  type ConcludeInfracao,
  type Infracao,
  Infracoes,
  infracoesRoutes,
  type OpenInfracao
} from "./Infracoes.js"
import { makeLocationHandler } from "./Locations.js"
import type { Cob, Devolucao, ReceivedPix, Send, State } from "./Model.js"
import { type OAuthClient, tokenRoute } from "./OAuth.js"
import { Automatico, type Recurring } from "./rec/Automatico.js"
import { makeRecLocationHandler } from "./rec/Locations.js"
import { automaticoRoutes } from "./rec/Routes.js"
import { sendRoutes } from "./SendApi.js"
import { makeHandler, type RequestRecord } from "./Server.js"

/** Options of `start`; every one has a default. */
export interface PspSimulatorOptions {
  /** Interface to listen on (default `127.0.0.1`). */
  readonly host?: string
  /** Port of the HTTPS API (default 0: any free port). */
  readonly port?: number
  /** Port of the charges' locations (open HTTPS; default 0: any free port). */
  readonly locationPort?: number
  /** Port of the plain-HTTP control API on `host`; no control server when absent (0: any free port). */
  readonly controlPort?: number
  /** OAuth2 clients (default one: `pixgate` / `pixgate-secret`, every scope). */
  readonly clients?: ReadonlyArray<OAuthClient>
  /** Lifetime of access tokens in seconds (default 3600). */
  readonly tokenTtlSeconds?: number
  /** The account's Pix keys, checked on cobs, webhooks and sends; any key when absent. */
  readonly pixKeys?: ReadonlyArray<string>
  /** What happens to an accepted send without a control call (default `"manual"`: it waits). */
  readonly sendOutcome?: SendOutcome
  /**
   * What happens to a new refund (devolução) without a control call (default `"settle"`:
   * `DEVOLVIDO` right after the answer; `"reject"`: `NAO_REALIZADO`; `"manual"`: it waits).
   */
  readonly refundOutcome?: RefundOutcome
  /** Default delivery of callbacks (default `"now"`). */
  readonly callbackMode?: CallbackMode
  /** Retries of a failed callback (default 0) and the wait between them (default 1000 ms). */
  readonly callbackRetries?: number
  readonly callbackRetryDelayMs?: number
  /** Time-out of one callback attempt (default 10 000 ms). */
  readonly callbackTimeoutMs?: number
  /** CAs trusted for HTTPS webhooks (default: Node's roots) and whether to verify them (default true). */
  readonly callbackCa?: string | ReadonlyArray<string>
  readonly callbackRejectUnauthorized?: boolean
  /** Extra DNS names for the server certificate. */
  readonly hostnames?: ReadonlyArray<string>
  /** Passphrase of the client's PKCS#12 file (default: random). */
  readonly pkcs12Passphrase?: string
  /**
   * Certificates to use. By default one set is generated per process and shared by every
   * simulator started without `pki`, `hostnames` or `pkcs12Passphrase`.
   */
  readonly pki?: TestPki
  /** The PSP's ISPB in end-to-end ids (default `99999999`). */
  readonly ispb?: string
  /** The clock (default: the system clock). */
  readonly now?: () => Date
}

/** A running simulated PSP. */
export interface PspSimulator {
  /** Base URL of the HTTPS API, e.g. `https://127.0.0.1:8443` (API Pix under `/v2`). */
  readonly url: string
  readonly port: number
  /**
   * Base URL of the charges' locations (open HTTPS, no client certificate): a cob's or cobv's
   * `location` is on this host, and a GET on it answers the charge as a JWS.
   */
  readonly locationUrl: string
  /** Base URL of the control API, when one was asked for. */
  readonly controlUrl: string | undefined
  /** The test CA and the client certificate (PEM and PKCS#12) to reach the API. */
  readonly tls: TestPki
  /** The first OAuth2 client's credentials. */
  readonly client: { readonly clientId: string; readonly clientSecret: string }
  /** The PSP's books (read them; change them through the methods below). */
  readonly state: State
  /**
   * Pix Automático: the books (`state`: locs, recs, solicitacoes, cobsr, webhooks) and the payer's
   * side (approve, reject, revoke, set a maximum, lack funds, cancel a debit, settle or reject an
   * attempt, let a charge expire).
   */
  readonly recurring: Recurring
  /** Every API request received, oldest first. */
  readonly requests: ReadonlyArray<RequestRecord>
  /** Every callback attempt, oldest first. */
  readonly deliveries: ReadonlyArray<CallbackDelivery>
  /** Callbacks held by mode `"hold"`. */
  readonly held: ReadonlyArray<HeldCallback>
  /** Pays a cob with any amount (even expired or, with `force`, already paid); posts the callback. */
  payCob(txid: string, options?: PayOptions): Promise<ReceivedPix>
  /** Removes a cob (`REMOVIDA_PELO_PSP`). */
  removeCob(txid: string): Cob
  /** A devolução the bank performs on its own for a MED (`MED_FRAUDE`, `MED_OPERACIONAL`), with its callback. */
  medReturn(
    endToEndId: string,
    input: {
      readonly valor: string
      readonly natureza: "MED_FRAUDE" | "MED_OPERACIONAL"
      readonly callback?: CallbackMode
    }
  ): Promise<Devolucao>
  /** MED infractions in Efí's shape (`GET /v2/gn/infracoes`, `POST .../defesa`): the books. */
  readonly infracoes: ReadonlyMap<string, Infracao>
  /** The payer's bank opens an infraction on a received PIX (blocked by default). */
  openInfraction(endToEndId: string, options?: OpenInfracao): Infracao
  /**
   * The bank concludes an infraction: `ACEITA` performs the MED devolução (with its `/pix`
   * callback), `REJEITADA` and `CANCELADA` only change its status.
   */
  concludeInfraction(idInfracao: string, options: ConcludeInfracao): Promise<Infracao>
  /** The infraction's deadline passes now: a defence is refused from here on. */
  expireInfraction(idInfracao: string): Infracao
  /** Settles an accepted send (`REALIZADO`) and posts its callback. */
  settleSend(idEnvio: string, options?: DecideOptions): Promise<Send>
  /** Rejects an accepted send (`NAO_REALIZADO`) and posts its callback. */
  rejectSend(idEnvio: string, options?: DecideOptions): Promise<Send>
  /** Changes what happens to new refunds (devoluções). */
  setRefundOutcome(outcome: RefundOutcome): void
  /** Settles a refund still `EM_PROCESSAMENTO` (`DEVOLVIDO`) and posts its callback. */
  settleRefund(endToEndId: string, id: string): Devolucao
  /** Refuses a refund still `EM_PROCESSAMENTO` (`NAO_REALIZADO`, with `motivo`) and posts its callback. */
  rejectRefund(endToEndId: string, id: string, motivo?: string): Devolucao
  /** Delivers the held callbacks, in order or reversed (out of order). */
  releaseCallbacks(order?: "held" | "reverse"): Promise<void>
  /** Changes the default delivery of callbacks. */
  setCallbackMode(mode: CallbackMode): void
  /** Changes the lifetime of tokens issued from now on. */
  setTokenTtl(seconds: number): void
  /** Expires every token issued so far (the next call with one answers 401). */
  expireTokens(): void
  /** Adds a fault. */
  addFault(fault: Fault): void
  /** Removes every fault. */
  clearFaults(): void
  /** The faults in force. */
  faults(): ReadonlyArray<Fault>
  /** Stops both servers, drops open connections and pending callbacks. */
  close(): Promise<void>
}

const listen = (server: http.Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve((server.address() as AddressInfo).port)
    })
  })

const shut = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })

const hostForUrl = (host: string) => (host.includes(":") ? `[${host}]` : host)

/** The settings the controls change while the simulator runs. */
interface Live {
  tokenTtl: number
  callbackMode: CallbackMode
  refundOutcome: RefundOutcome
  locationPort: number
}

/** The simulator's servers; `control` is set once the control API listens. */
interface Servers {
  readonly api: http.Server
  readonly locations: http.Server
  control: http.Server | undefined
}

/** The certificates: the given ones, the shared ones, or new ones for other hostnames. */
const pkiFor = (options: PspSimulatorOptions): TestPki =>
  options.pki ??
  (options.hostnames === undefined && options.pkcs12Passphrase === undefined
    ? shared()
    : generatePki({
        ...(options.hostnames ? { hostnames: options.hostnames } : {}),
        ...(options.pkcs12Passphrase === undefined ? {} : { pkcs12Passphrase: options.pkcs12Passphrase })
      }))

/** The books: the bank (cobs, Pix, sends), Pix Automático and the callbacks both send. */
const makeBooks = (options: PspSimulatorOptions, pki: TestPki, host: string, now: () => Date, live: Live) => {
  let bank: Bank
  const callbacks = new Callbacks(
    {
      webhookFor: (chave, path) =>
        path === "pix"
          ? bank.state.webhooks.get(chave)?.webhookUrl
          : automatico.state.webhooks.get(path)?.webhookUrl,
      tls: {
        cert: pki.callbackCertPem,
        key: pki.callbackKeyPem,
        ...(options.callbackCa === undefined ? {} : { ca: options.callbackCa }),
        ...(options.callbackRejectUnauthorized === undefined
          ? {}
          : { rejectUnauthorized: options.callbackRejectUnauthorized })
      },
      retries: options.callbackRetries ?? 0,
      retryDelayMs: options.callbackRetryDelayMs ?? 1000,
      timeoutMs: options.callbackTimeoutMs ?? 10_000
    },
    now
  )
  bank = new Bank(
    {
      ispb: options.ispb ?? "99999999",
      merchantName: "PIXGATE SIMULADO",
      merchantCity: "SAO PAULO",
      locationHost: () => `${hostForUrl(host)}:${live.locationPort}`,
      ...(options.pixKeys ? { pixKeys: options.pixKeys } : {}),
      sendOutcome: options.sendOutcome ?? "manual",
      callbackMode: () => live.callbackMode,
      refundOutcome: () => live.refundOutcome,
      now
    },
    callbacks
  )
  const automatico: Automatico = new Automatico({
    ispb: options.ispb ?? "99999999",
    now,
    locationHost: () => `${hostForUrl(host)}:${live.locationPort}`,
    callbackMode: () => live.callbackMode,
    notify: (kind, body, mode) => callbacks.dispatch("", body, mode, kind),
    receivePix: (pix) => {
      const rec = automatico.state.recs.get(automatico.state.cobsr.get(pix.txid)?.idRec ?? "")
      const devedor = rec?.vinculo.devedor
      bank.state.pix.set(pix.endToEndId, {
        ...pix,
        chave: options.pixKeys?.[0] ?? "pix-automatico",
        pagador: { nome: devedor?.nome ?? "", cpf: devedor && "cpf" in devedor ? devedor.cpf : "" },
        devolucoes: []
      })
    },
    payCob: (txid) => bank.payCob(txid)
  })
  return { callbacks, bank, automatico, infracoes: new Infracoes(bank) }
}

type Books = ReturnType<typeof makeBooks>

/** The mTLS API's server: every route, behind the faults and the token check. */
const makeApiServer = (
  { bank, automatico, infracoes }: Books,
  pki: TestPki,
  clients: ReadonlyArray<OAuthClient>,
  now: () => Date,
  live: Live,
  faults: Faults,
  requests: Array<RequestRecord>,
  timers: Set<NodeJS.Timeout>
) => {
  const handler = makeHandler({
    routes: [
      tokenRoute({ clients, tokenTtlSeconds: () => live.tokenTtl, tokens: bank.state.tokens, now }),
      ...apiPixRoutes,
      ...sendRoutes,
      ...infracoesRoutes(infracoes),
      ...automaticoRoutes(automatico, bank)
    ],
    bank,
    faults,
    tokens: bank.state.tokens,
    now,
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
  return https.createServer(
    {
      key: pki.serverKeyPem,
      cert: pki.serverCertPem,
      ca: [pki.caPem],
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2"
    },
    (request, response) => void handler(request, response)
  )
}

/** The programmatic API over the books, the settings and the servers. */
const simulatorApi = (
  { callbacks, bank, automatico, infracoes }: Books,
  base: Pick<PspSimulator, "url" | "port" | "locationUrl" | "tls" | "client" | "requests">,
  now: () => Date,
  live: Live,
  faults: Faults,
  timers: Set<NodeJS.Timeout>,
  servers: Servers
): PspSimulator => ({
  ...base,
  controlUrl: undefined,
  state: bank.state,
  recurring: automatico,
  deliveries: callbacks.deliveries,
  held: callbacks.held,
  payCob: (txid, payOptions) => bank.payCob(txid, payOptions),
  medReturn: (endToEndId, input) => bank.medReturn(endToEndId, input),
  removeCob: (txid) => bank.removeCob(txid),
  infracoes: infracoes.all,
  openInfraction: (endToEndId, openOptions) => infracoes.open(endToEndId, openOptions),
  concludeInfraction: (idInfracao, concludeOptions) => infracoes.conclude(idInfracao, concludeOptions),
  expireInfraction: (idInfracao) => infracoes.expire(idInfracao),
  settleSend: (idEnvio, decideOptions) => bank.settleSend(idEnvio, decideOptions),
  rejectSend: (idEnvio, decideOptions) => bank.rejectSend(idEnvio, decideOptions),
  setRefundOutcome: (outcome) => {
    live.refundOutcome = outcome
  },
  settleRefund: (endToEndId, id) => bank.decideRefundById(endToEndId, id, "DEVOLVIDO"),
  rejectRefund: (endToEndId, id, motivo) => bank.decideRefundById(endToEndId, id, "NAO_REALIZADO", motivo),
  releaseCallbacks: (order) => callbacks.releaseHeld(order),
  setCallbackMode: (mode) => {
    live.callbackMode = mode
  },
  setTokenTtl: (seconds) => {
    live.tokenTtl = seconds
  },
  expireTokens: () => {
    const at = now().getTime()
    for (const token of bank.state.tokens.values()) token.expiresAt = Math.min(token.expiresAt, at)
  },
  addFault: (fault) => faults.add(fault),
  clearFaults: () => faults.clear(),
  faults: () => faults.list(),
  close: async () => {
    callbacks.close()
    for (const timer of timers) clearTimeout(timer)
    const { api, locations, control } = servers
    await Promise.all([shut(api), shut(locations), ...(control ? [shut(control)] : [])])
  }
})

/** Starts a simulated PSP: the HTTPS API (mTLS), and the control API when `controlPort` is set. */
export const start = async (options: PspSimulatorOptions = {}): Promise<PspSimulator> => {
  const host = options.host ?? "127.0.0.1"
  const now = options.now ?? (() => new Date())
  const pki = pkiFor(options)
  const clients = options.clients ?? [{ clientId: "pixgate", clientSecret: "pixgate-secret" }]
  const live: Live = {
    tokenTtl: options.tokenTtlSeconds ?? 3600,
    callbackMode: options.callbackMode ?? "now",
    refundOutcome: options.refundOutcome ?? "settle",
    locationPort: 0
  }
  const faults = new Faults()
  const requests: Array<RequestRecord> = []
  const timers = new Set<NodeJS.Timeout>()
  const books = makeBooks(options, pki, host, now, live)
  const { bank, automatico } = books
  const api = makeApiServer(books, pki, clients, now, live, faults, requests, timers)
  const apiPort = await listen(api, options.port ?? 0, host)
  const url = `https://${hostForUrl(host)}:${apiPort}`
  // The locations are open to any payer's PSP: no client certificate, their own server.
  const locations = https.createServer(
    { key: pki.serverKeyPem, cert: pki.serverCertPem, minVersion: "TLSv1.2" },
    makeRecLocationHandler(
      automatico,
      bank,
      pki,
      makeLocationHandler({ bank, keyPem: pki.serverKeyPem, certPem: pki.serverCertPem })
    )
  )
  try {
    live.locationPort = await listen(locations, options.locationPort ?? 0, host)
  } catch (error) {
    await shut(api)
    throw error
  }

  const servers: Servers = { api, locations, control: undefined }
  const simulator = simulatorApi(
    books,
    {
      url,
      port: apiPort,
      locationUrl: `https://${hostForUrl(host)}:${live.locationPort}`,
      tls: pki,
      client: { clientId: clients[0].clientId, clientSecret: clients[0].clientSecret },
      requests
    },
    now,
    live,
    faults,
    timers,
    servers
  )

  if (options.controlPort !== undefined) {
    servers.control = http.createServer(makeControlHandler(simulator, bank))
    try {
      const controlPort = await listen(servers.control, options.controlPort, host)
      return { ...simulator, controlUrl: `http://${hostForUrl(host)}:${controlPort}` }
    } catch (error) {
      servers.control = undefined
      await Promise.all([shut(api), shut(locations)])
      throw error
    }
  }
  return simulator
}
