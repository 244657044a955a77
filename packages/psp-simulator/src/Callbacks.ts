import * as http from "node:http"
import * as https from "node:https"

/**
 * How one callback is delivered:
 * - `"now"`: once, right away (the default);
 * - `"twice"`: twice in a row (at-least-once delivery);
 * - `"never"`: dropped (a lost callback: only reconciliation finds the event);
 * - `"hold"`: kept until `releaseHeld()`, which can deliver the held ones in reverse (out of order);
 * - `{ delayMs }`: once, late.
 */
export type CallbackMode = "now" | "twice" | "never" | "hold" | { readonly delayMs: number }

/** One attempt to deliver a callback, as recorded by the simulator. */
export interface CallbackDelivery {
  /** The URL posted to: the webhook registered for the key, with `/pix` appended. */
  readonly url: string
  readonly body: unknown
  readonly at: Date
  /** The HTTP status the receiver answered, when it answered. */
  readonly status?: number
  /** Why the attempt failed: no webhook for the key, a network error or a time-out. */
  readonly error?: string
  /** 1 for the first attempt of a delivery, 2 for its first retry, and so on. */
  readonly attempt: number
}

/** A callback waiting for `releaseHeld()`. */
export interface HeldCallback {
  readonly chave: string
  readonly body: unknown
  /** What is appended to the webhook's URL: `pix`, or `rec` and `cobr` for Pix Automático. */
  readonly path?: CallbackPath
}

/** The path a callback is posted to under the webhook's URL. */
export type CallbackPath = "pix" | "rec" | "cobr"

/** TLS settings for callbacks posted to an `https:` webhook. */
export interface CallbackTls {
  /** The certificate (PEM) the simulator presents to the receiver (mTLS). */
  readonly cert: string
  /** Its private key (PEM). */
  readonly key: string
  /** CAs that sign the receiver's certificate; Node's default roots when absent. */
  readonly ca?: string | ReadonlyArray<string>
  /** Whether the receiver's certificate must verify (default true). */
  readonly rejectUnauthorized?: boolean
}

/** Settings of the callback sender. */
export interface CallbackSettings {
  /** The webhook URL of a Pix key (`path` "pix") or of the recurring webhooks ("rec", "cobr"). */
  readonly webhookFor: (chave: string, path: CallbackPath) => string | undefined
  readonly tls: CallbackTls
  /** Retries after a failed attempt (non-2xx, error, time-out). */
  readonly retries: number
  readonly retryDelayMs: number
  readonly timeoutMs: number
}

/** The URL a PSP posts to for a registered webhook: the URL with `/pix` (or `/rec`, `/cobr`) appended. */
const callbackUrl = (webhookUrl: string, path: CallbackPath) => {
  const url = new URL(webhookUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`
  return url
}

const post = (url: URL, payload: string, settings: CallbackSettings) =>
  new Promise<number>((resolve, reject) => {
    const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    const onResponse = (response: http.IncomingMessage) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
      response.on("error", reject)
    }
    const request =
      url.protocol === "https:"
        ? https.request(
            url,
            {
              method: "POST",
              headers,
              agent: false,
              cert: settings.tls.cert,
              key: settings.tls.key,
              ...(settings.tls.ca === undefined ? {} : { ca: settings.tls.ca as string | Array<string> }),
              rejectUnauthorized: settings.tls.rejectUnauthorized ?? true
            },
            onResponse
          )
        : http.request(url, { method: "POST", headers, agent: false }, onResponse)
    request.setTimeout(settings.timeoutMs, () => request.destroy(new Error("callback timed out")))
    request.on("error", reject)
    request.end(payload)
  })

/** Posts callbacks to registered webhooks, with delivery modes, retries and a record of attempts. */
export class Callbacks {
  /** Every attempt so far, oldest first. */
  readonly deliveries: Array<CallbackDelivery> = []
  /** Callbacks held by mode `"hold"`, oldest first. */
  readonly held: Array<HeldCallback> = []
  private readonly sleepers = new Map<NodeJS.Timeout, () => void>()
  private closed = false

  constructor(
    private readonly settings: CallbackSettings,
    private readonly now: () => Date
  ) {}

  /** Sends `body` to the webhook of `chave` as `mode` says; resolves once immediate attempts end. */
  dispatch(chave: string, body: unknown, mode: CallbackMode, path: CallbackPath = "pix"): Promise<void> {
    if (mode === "never" || this.closed) return Promise.resolve()
    if (mode === "hold") {
      this.held.push({ chave, body, ...(path === "pix" ? {} : { path }) })
      return Promise.resolve()
    }
    if (mode === "now") return this.deliver(chave, body, 1, path)
    if (mode === "twice")
      return this.deliver(chave, body, 1, path).then(() => this.deliver(chave, body, 1, path))
    void this.sleep(mode.delayMs).then((awake) => (awake ? this.deliver(chave, body, 1, path) : undefined))
    return Promise.resolve()
  }

  /** Delivers the held callbacks, in the order they were held or in reverse. */
  async releaseHeld(order: "held" | "reverse" = "held"): Promise<void> {
    const batch = this.held.splice(0, this.held.length)
    if (order === "reverse") batch.reverse()
    for (const callback of batch) await this.deliver(callback.chave, callback.body, 1, callback.path ?? "pix")
  }

  /** Stops every pending delivery (late ones and retries). */
  close() {
    this.closed = true
    for (const [timer, wake] of this.sleepers) {
      clearTimeout(timer)
      wake()
    }
    this.sleepers.clear()
  }

  /** Waits `ms`; true when the time passed, false when the sender closed first. */
  private sleep(ms: number) {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.sleepers.delete(timer)
        resolve(!this.closed)
      }, ms)
      this.sleepers.set(timer, () => resolve(false))
    })
  }

  private async deliver(
    chave: string,
    body: unknown,
    attempt = 1,
    path: CallbackPath = "pix"
  ): Promise<void> {
    if (this.closed) return
    const webhookUrl = this.settings.webhookFor(chave, path)
    if (webhookUrl === undefined) {
      this.deliveries.push({
        url: "",
        body,
        at: this.now(),
        error: path === "pix" ? `no webhook registered for ${chave}` : `no webhook${path} registered`,
        attempt
      })
      return
    }
    const url = callbackUrl(webhookUrl, path)
    let outcome: { status?: number; error?: string }
    try {
      outcome = { status: await post(url, JSON.stringify(body), this.settings) }
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) }
    }
    this.deliveries.push({ url: url.href, body, at: this.now(), attempt, ...outcome })
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300
    if (!ok && attempt <= this.settings.retries && (await this.sleep(this.settings.retryDelayMs))) {
      await this.deliver(chave, body, attempt + 1, path)
    }
  }
}
