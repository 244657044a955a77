/**
 * The e-mails the panel sends, in pt-BR: a plain-text body and an HTML body (one column, inline
 * styles, no images or remote content, readable at phone width) with the brand's name and colour.
 * Every value written into the HTML is escaped.
 */
import type { MailBrand } from "../ports/Mail.js"

/** What a message says. */
export interface Body {
  readonly subject: string
  /** The heading and the paragraphs, plain text. */
  readonly heading: string
  readonly paragraphs: ReadonlyArray<string>
  /** The one action the message asks for, if any. */
  readonly action?: { readonly label: string; readonly url: string }
  /** A last line in small print (why the person got it). */
  readonly footnote?: string
}

/** A message's subject and bodies. */
export interface Rendered {
  readonly subject: string
  readonly text: string
  readonly html: string
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c
  )

/** Only a CSS colour of safe characters goes into a style attribute; otherwise the default. */
const colour = (c: string): string => (/^[#a-zA-Z0-9(),.%\s-]{1,64}$/.test(c) ? c : "#0b6e4f")

/** The message in both forms. */
export const render = (brand: MailBrand, body: Body): Rendered => {
  const name = brand.productName
  const subject = `${body.subject} · ${name}`
  const text = [
    name,
    "",
    body.heading,
    "",
    ...body.paragraphs.flatMap((p) => [p, ""]),
    ...(body.action === undefined ? [] : [`${body.action.label}: ${body.action.url}`, ""]),
    ...(body.footnote === undefined ? [] : [body.footnote, ""]),
    ...(brand.supportUrl === undefined ? [] : [`Ajuda: ${brand.supportUrl}`])
  ]
    .join("\n")
    .trimEnd()
  const primary = colour(brand.primaryColor)
  const button =
    body.action === undefined
      ? ""
      : `<p style="margin:24px 0"><a href="${escapeHtml(body.action.url)}" style="background:${primary};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block;font-weight:bold">${escapeHtml(body.action.label)}</a></p>
<p style="font-size:13px;color:#444444;word-break:break-all">Se o botão não abrir, copie este endereço no navegador:<br>${escapeHtml(body.action.url)}</p>`
  const html = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f4;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a">
<div style="max-width:560px;margin:0 auto;background:#ffffff">
<div style="background:${primary};color:#ffffff;padding:16px 24px;font-size:18px;font-weight:bold">${escapeHtml(name)}</div>
<div style="padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(body.heading)}</h1>
${body.paragraphs.map((p) => `<p style="font-size:15px;line-height:1.5">${escapeHtml(p)}</p>`).join("\n")}
${button}
${body.footnote === undefined ? "" : `<p style="font-size:12px;color:#555555">${escapeHtml(body.footnote)}</p>`}
${brand.supportUrl === undefined ? "" : `<p style="font-size:12px"><a href="${escapeHtml(brand.supportUrl)}" style="color:#1a1a1a">Ajuda</a></p>`}
</div></div></body></html>`
  return { subject, text, html }
}

const hours = (ms: number) => Math.round(ms / 3_600_000)
const minutes = (ms: number) => Math.round(ms / 60_000)

/** The invitation to a merchant's panel. */
export const invite = (
  brand: MailBrand,
  input: {
    readonly merchantName: string
    readonly inviter: string
    readonly role: string
    readonly url: string
    readonly lifetimeMs: number
  }
): Rendered =>
  render(brand, {
    subject: `Convite para o painel de ${input.merchantName}`,
    heading: `Você foi convidado para o painel de ${input.merchantName}`,
    paragraphs: [
      `${input.inviter} convidou você para acessar o painel de ${input.merchantName} com o papel ${input.role}.`,
      `Para aceitar, abra o link abaixo e crie sua senha. O link vale por ${hours(input.lifetimeMs)} horas e pode ser usado uma vez.`
    ],
    action: { label: "Aceitar o convite", url: input.url },
    footnote: "Se você não esperava este convite, ignore esta mensagem."
  })

/** The "Esqueci minha senha" link. */
export const passwordReset = (
  brand: MailBrand,
  input: { readonly url: string; readonly lifetimeMs: number }
): Rendered =>
  render(brand, {
    subject: "Redefinir sua senha",
    heading: "Redefinição de senha",
    paragraphs: [
      "Recebemos um pedido para redefinir a senha da sua conta no painel.",
      `Abra o link abaixo para criar uma nova senha. Ele vale por ${minutes(input.lifetimeMs)} minutos e pode ser usado uma vez. Ao redefinir, suas outras sessões são encerradas.`
    ],
    action: { label: "Criar nova senha", url: input.url },
    footnote: "Se não foi você, ignore esta mensagem: sua senha continua a mesma."
  })

/** A notification the user chose on their account page. */
export const notification = (
  brand: MailBrand,
  input: { readonly subject: string; readonly lines: ReadonlyArray<string>; readonly url: string }
): Rendered =>
  render(brand, {
    subject: input.subject,
    heading: input.subject,
    paragraphs: input.lines,
    action: { label: "Abrir no painel", url: input.url },
    footnote:
      "Você recebe este aviso porque o escolheu em Notificações, no painel; lá também pode desligá-lo."
  })
