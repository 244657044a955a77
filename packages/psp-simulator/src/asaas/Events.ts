/**
 * Asaas's webhooks as the documentation describes them: a `POST` of
 * `{ id, event, dateCreated, payment | transfer }` to every enabled configuration that listens
 * to the event, with the configuration's token in the `asaas-access-token` header. Only an
 * HTTP 200 counts as delivered; anything else is a failure, and 15 failures in a row interrupt
 * the configuration's queue (nothing more is sent to it until it is re-enabled). How each event
 * is delivered follows the simulator's modes (`now`, `twice`, `never`, `hold`, `{ delayMs }`).
 */
import * as http from "node:http"
import * as https from "node:https"
import type { CallbackMode } from "../Callbacks.js"
import { type AsaasState, moment, newId, type WebhookConfig } from "./Model.js"

/** Failed deliveries in a row after which Asaas interrupts a webhook's queue. */
export const interruptAfter = 15

/** One delivery attempt of an event. */
export interface EventDelivery {
  readonly url: string
  readonly event: string
  readonly body: Record<string, unknown>
  readonly at: Date
  /** The `asaas-access-token` header sent, if the configuration has a token. */
  readonly token?: string
  readonly status?: number
  readonly error?: string
  readonly attempt: number
}

/** An event held by mode `hold`. */
export interface HeldEvent {
  readonly event: string
  readonly body: Record<string, unknown>
}

/** Settings of the sender. */
export interface EventSettings {
  readonly state: AsaasState
  readonly now: () => Date
  /** Retries after a failed attempt (default 0) and the wait between them. */
  readonly retries: number
  readonly retryDelayMs: number
  readonly timeoutMs: number
  /** CAs trusted for `https:` webhooks (Node's roots when absent). */
  readonly ca?: string
}

const post = (url: URL, payload: string, token: string | undefined, settings: EventSettings) =>
  new Promise<number>((resolve, reject) => {
    const headers = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
      "user-agent": "Asaas-Simulado/3",
      ...(token === undefined ? {} : { "asaas-access-token": token })
    }
    const onResponse = (response: http.IncomingMessage) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
      response.on("error", reject)
    }
    const request =
      url.protocol === "https:"
        ? https.request(
            url,
            { method: "POST", headers, agent: false, ...(settings.ca ? { ca: settings.ca } : {}) },
            onResponse
          )
        : http.request(url, { method: "POST", headers, agent: false }, onResponse)
    request.setTimeout(settings.timeoutMs, () => request.destroy(new Error("webhook timed out")))
    request.on("error", reject)
    request.end(payload)
  })

/** Posts events to the account's webhook configurations, with modes, retries and a record. */
export class Events {
  /** Every attempt so far, oldest first. */
  readonly deliveries: Array<EventDelivery> = []
  /** Events held by mode `hold`, oldest first. */
  readonly held: Array<HeldEvent> = []
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  constructor(private readonly settings: EventSettings) {}

  /** Emits `event` about `resource` (`payment` or `transfer`) as `mode` says. */
  emit(event: string, key: "payment" | "transfer", resource: unknown, mode: CallbackMode): Promise<void> {
    const body = { id: newId("evt"), event, dateCreated: moment(this.settings.now()), [key]: resource }
    if (mode === "never" || this.closed) return Promise.resolve()
    if (mode === "hold") {
      this.held.push({ event, body })
      return Promise.resolve()
    }
    if (mode === "now") return this.deliver(event, body)
    if (mode === "twice") return this.deliver(event, body).then(() => this.deliver(event, body))
    this.later(mode.delayMs, () => void this.deliver(event, body))
    return Promise.resolve()
  }

  /** Delivers the held events, in order or reversed. */
  async release(order: "held" | "reverse" = "held") {
    const batch = this.held.splice(0, this.held.length)
    if (order === "reverse") batch.reverse()
    for (const held of batch) await this.deliver(held.event, held.body)
  }

  /** Stops every pending delivery. */
  close() {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  private later(ms: number, run: () => void) {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      if (!this.closed) run()
    }, ms)
    this.timers.add(timer)
  }

  private listening(event: string): ReadonlyArray<WebhookConfig> {
    return [...this.settings.state.webhooks.values()].filter(
      (w) => w.enabled && !w.interrupted && w.events.includes(event)
    )
  }

  private async deliver(event: string, body: Record<string, unknown>) {
    await Promise.all(this.listening(event).map((webhook) => this.attempt(webhook, event, body, 1)))
  }

  private async attempt(
    webhook: WebhookConfig,
    event: string,
    body: Record<string, unknown>,
    attempt: number
  ) {
    if (this.closed) return
    let outcome: { status?: number; error?: string }
    try {
      outcome = {
        status: await post(new URL(webhook.url), JSON.stringify(body), webhook.authToken, this.settings)
      }
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) }
    }
    this.deliveries.push({
      url: webhook.url,
      event,
      body,
      at: this.settings.now(),
      attempt,
      ...(webhook.authToken === undefined ? {} : { token: webhook.authToken }),
      ...outcome
    })
    if (outcome.status === 200) {
      webhook.failures = 0
      return
    }
    webhook.failures += 1
    if (webhook.failures >= interruptAfter) webhook.interrupted = true
    else if (attempt <= this.settings.retries)
      this.later(this.settings.retryDelayMs, () => void this.attempt(webhook, event, body, attempt + 1))
  }
}
