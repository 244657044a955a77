/**
 * The SMTP mailer against a real SMTP server on 127.0.0.1 (`smtp-server`, messages read with
 * `mailparser`): the message arrives with its sender, `Message-ID`, both bodies and a DKIM
 * signature when asked for; a mailbox the server refuses (550) is a failure for good, a server
 * that is not there one to try again. And the environment: `PIXGATE_SMTP_URL` needs the sender
 * and the panel's address, DKIM's three settings go together.
 */
import { generateKeyPairSync } from "node:crypto"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Mail } from "@pixgate/core"
import { Effect, Either } from "effect"
import { type ParsedMail, simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"
import * as Environment from "../src/Environment.js"
import * as Smtp from "../src/Smtp.js"

const sink = async () => {
  const got: Array<{ raw: string; mail: ParsedMail }> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith("nobody@"))
        return callback(Object.assign(new Error("No such user"), { responseCode: 550 }))
      callback()
    },
    onData(stream, _session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        void simpleParser(raw).then((mail) => {
          got.push({ raw, mail })
          callback()
        })
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  return { got, port, close: () => new Promise<void>((r) => server.close(() => r())) }
}

const message = (to: string): Mail.MailMessage => ({
  id: "mail_0123456789abcdef",
  to,
  subject: "Convite para o painel · Loja",
  text: "Olá\nhttps://pay.loja.example/panel/invite/abc",
  html: '<p><a href="https://pay.loja.example/panel/invite/abc">Aceitar</a></p>'
})

const send = (options: Smtp.MailOptions, m: Mail.MailMessage) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Mail.Mailer, (mailer) => Effect.either(mailer.send(m))).pipe(
        Effect.provide(Smtp.layer(options))
      )
    )
  )

describe("Smtp", () => {
  it("delivers both bodies with the sender, Message-ID and a DKIM signature", async () => {
    const s = await sink()
    try {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
      const result = await send(
        {
          url: `smtp://127.0.0.1:${s.port}`,
          from: "Loja Aurora <no-reply@loja.example>",
          panelUrl: "https://pay.loja.example/panel/",
          dkim: {
            domainName: "loja.example",
            keySelector: "mail2026",
            privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString()
          }
        },
        message("ana@example.com")
      )
      expect(Either.isRight(result)).toBe(true)
      const [first] = s.got
      expect(first?.mail.messageId).toBe("<mail_0123456789abcdef@loja.example>")
      expect(first?.mail.from?.text).toBe('"Loja Aurora" <no-reply@loja.example>')
      expect(first?.mail.text).toContain("https://pay.loja.example/panel/invite/abc")
      expect(first?.mail.html).toContain('href="https://pay.loja.example/panel/invite/abc"')
      const dkim = first?.raw.match(/^DKIM-Signature:.*(?:\r\n[ \t].*)*/m)?.[0] ?? ""
      expect(dkim).toMatch(/d=loja\.example/)
      expect(dkim).toMatch(/s=mail2026/)
    } finally {
      await s.close()
    }
  }, 60_000)

  it("tells a refused mailbox (5xx) from a server that is not there", async () => {
    const s = await sink()
    try {
      const refused = await send(
        { url: `smtp://127.0.0.1:${s.port}`, from: "x@loja.example", panelUrl: "https://p.example" },
        message("nobody@example.com")
      )
      expect(Either.isLeft(refused) && refused.left.permanent).toBe(true)
    } finally {
      await s.close()
    }
    const gone = await send(
      {
        url: `smtp://127.0.0.1:${s.port}`,
        from: "x@loja.example",
        panelUrl: "https://p.example",
        timeoutMs: 2000
      },
      message("ana@example.com")
    )
    expect(Either.isLeft(gone) && gone.left.permanent).toBe(false)
  }, 60_000)
})

describe("Environment.mail", () => {
  const read = (env: Record<string, string>) =>
    Effect.runSync(Effect.either(Effect.withConfigProvider(Environment.mail, Environment.provider(env))))

  it("is undefined without PIXGATE_SMTP_URL", () => {
    expect(read({ PIXGATE_MAIL_FROM: "x@y.z" })).toEqual(Either.right(undefined))
  })

  it("takes the URL with the sender and the panel's address", () => {
    expect(
      read({
        PIXGATE_SMTP_URL: "smtp://u:p@smtp.example.com:587",
        PIXGATE_MAIL_FROM: "Loja <no-reply@loja.example>",
        PIXGATE_PANEL_URL: "https://pay.loja.example/panel"
      })
    ).toEqual(
      Either.right({
        url: "smtp://u:p@smtp.example.com:587",
        from: "Loja <no-reply@loja.example>",
        panelUrl: "https://pay.loja.example/panel"
      })
    )
  })

  it("refuses a URL without the sender or the panel's address, and half a DKIM setting", () => {
    const message = (env: Record<string, string>) =>
      Either.match(read(env), { onLeft: (e) => String(e), onRight: () => "" })
    expect(message({ PIXGATE_SMTP_URL: "smtp://h", PIXGATE_PANEL_URL: "https://p" })).toContain(
      "PIXGATE_MAIL_FROM"
    )
    expect(message({ PIXGATE_SMTP_URL: "smtp://h", PIXGATE_MAIL_FROM: "a@b.c" })).toContain(
      "PIXGATE_PANEL_URL"
    )
    expect(
      message({ PIXGATE_SMTP_URL: "http://h", PIXGATE_MAIL_FROM: "a@b.c", PIXGATE_PANEL_URL: "https://p" })
    ).toContain("PIXGATE_SMTP_URL")
    expect(
      message({
        PIXGATE_SMTP_URL: "smtp://h",
        PIXGATE_MAIL_FROM: "a@b.c",
        PIXGATE_PANEL_URL: "https://p",
        PIXGATE_MAIL_DKIM_DOMAIN: "b.c"
      })
    ).toContain("go together")
  })
})
