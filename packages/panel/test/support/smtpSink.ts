/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps every message it takes,
 * parsed by `mailparser`: tests read what a person would receive (headers, text, HTML, links).
 * No TLS and no authentication, as a local relay: nodemailer speaks plain SMTP to it.
 */
import type { AddressInfo } from "node:net"
import { type ParsedMail, simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"
import { expect } from "vitest"

export interface Received {
  readonly envelopeTo: ReadonlyArray<string>
  readonly raw: string
  readonly mail: ParsedMail
}

export interface Sink {
  readonly url: string
  readonly messages: Array<Received>
  /** The first message to `to` (whose subject matches `subject`) among those after `after`, waiting for it. */
  readonly waitFor: (to: string, subject: RegExp, after?: number) => Promise<Received>
  readonly close: () => Promise<void>
}

export const start = async (): Promise<Sink> => {
  const messages: Array<Received> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        simpleParser(raw).then(
          (mail) => {
            messages.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, mail })
            callback()
          },
          (error: Error) => callback(error)
        )
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  const waitFor = async (to: string, subject: RegExp, after = 0) => {
    const find = () =>
      messages.slice(after).find((m) => m.envelopeTo.includes(to) && subject.test(m.mail.subject ?? ""))
    await expect.poll(() => find() !== undefined, { timeout: 30_000, interval: 100 }).toBe(true)
    return find() as Received
  }
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** The first link of a message's text body that starts with `prefix`. */
export const linkIn = (r: Received, prefix: string): string => {
  const text = r.mail.text ?? ""
  const at = text.indexOf(prefix)
  expect(at).toBeGreaterThanOrEqual(0)
  return text.slice(at).split(/\s/)[0] ?? ""
}
