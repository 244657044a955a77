/**
 * The `Mailer` port over SMTP, on nodemailer: one pooled connection to the server of
 * `PIXGATE_SMTP_URL` (`smtp://user:pass@host:587` with STARTTLS when offered, `smtps://...:465`
 * for TLS from the start), the sender of `PIXGATE_MAIL_FROM`, links under `PIXGATE_PANEL_URL`,
 * and optionally DKIM signatures (`PIXGATE_MAIL_DKIM_*`). The job worker calls it (`mail.send`);
 * nothing here runs inside a request. See docs/operations.md, "E-mail". nodemailer is imported
 * and its transport made on the first message sent, not when the server starts (a server that
 * sends no mail never loads it).
 */
import { Mail } from "@pixgate/core"
import { Effect, Layer } from "effect"
import type { Transporter } from "nodemailer"

/** How the server sends e-mail. */
export interface MailOptions {
  /** `smtp://[user:pass@]host[:port]` or `smtps://...` (user and password URL-encoded). */
  readonly url: string
  /** The sender, e.g. `Loja Aurora <no-reply@loja.com.br>`. */
  readonly from: string
  /** The panel's public address, links are written under it: `https://pay.loja.com.br/panel`. */
  readonly panelUrl: string
  /** The messages' brand (default: Pixgate's). */
  readonly brand?: Mail.MailBrand
  /** DKIM signing (optional; most providers sign for you). */
  readonly dkim?: {
    readonly domainName: string
    readonly keySelector: string
    /** The PEM private key. */
    readonly privateKey: string
  }
  /** Per-connection time limits, in milliseconds (default 30 000 each). */
  readonly timeoutMs?: number
}

/** The domain of a sender address, for the `Message-ID`. */
export const domainOf = (from: string): string => {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from
  const at = address.lastIndexOf("@")
  return at < 0 ? "localhost" : address.slice(at + 1).trim() || "localhost"
}

/** Whether an SMTP failure is for good (a 5xx answer): not tried again. */
export const permanent = (error: unknown): boolean => {
  const code =
    typeof error === "object" && error !== null && "responseCode" in error
      ? Number(error.responseCode)
      : Number.NaN
  return code >= 500 && code < 600
}

/** The checked settings; throws a `TypeError` naming what is wrong. */
export const check = (options: MailOptions): MailOptions => {
  if (!/^smtps?:\/\/[^\s]+$/.test(options.url))
    throw new TypeError("PIXGATE_SMTP_URL must be an smtp:// or smtps:// URL")
  if (!/@/.test(options.from)) throw new TypeError("PIXGATE_MAIL_FROM must hold an e-mail address")
  if (!/^https?:\/\/[^\s]+$/.test(options.panelUrl))
    throw new TypeError("PIXGATE_PANEL_URL must be the panel's public http(s):// address")
  return { ...options, panelUrl: options.panelUrl.replace(/\/+$/, "") }
}

/** The `Mailer` over SMTP; the pool closes with the layer. */
export const layer = (given: MailOptions): Layer.Layer<Mail.Mailer> =>
  Layer.scoped(
    Mail.Mailer,
    Effect.gen(function* () {
      const options = check(given)
      const timeout = options.timeoutMs ?? 30_000
      // Made once, on the first message; closed with the layer if it was made.
      let transport: Promise<Transporter> | undefined
      const transporter = () => {
        transport ??= import("nodemailer").then(
          ({ default: nodemailer }) =>
            nodemailer.createTransport({
              url: options.url,
              pool: true,
              maxConnections: 2,
              connectionTimeout: timeout,
              greetingTimeout: timeout,
              socketTimeout: timeout,
              ...(options.dkim === undefined ? {} : { dkim: { ...options.dkim } })
            }),
          (error: unknown) => {
            transport = undefined
            throw error
          }
        )
        return transport
      }
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => (await transport?.catch(() => undefined))?.close())
      )
      const domain = domainOf(options.from)
      const send = (message: Mail.MailMessage) =>
        Effect.tryPromise({
          try: async () =>
            (await transporter()).sendMail({
              from: options.from,
              to: message.to,
              subject: message.subject,
              text: message.text,
              html: message.html,
              messageId: `<${message.id}@${domain}>`,
              headers: { "Auto-Submitted": "auto-generated" }
            }),
          catch: (error) =>
            new Mail.MailError({
              message: error instanceof Error ? error.message : String(error),
              permanent: permanent(error)
            })
        }).pipe(Effect.asVoid)
      return {
        send,
        from: options.from,
        panelUrl: options.panelUrl,
        brand: options.brand ?? Mail.defaultBrand
      } satisfies Mail.MailerShape
    })
  )
