/**
 * What a PSP's error answer says, for logs an on-call engineer can act on: the RFC 7807 problem
 * of the API Pix (`type`, `title`, `detail`, `violacoes`) or Efí's `{ nome, mensagem }`, as flat
 * log fields and one sentence (never `[object Object]`); and a `Retry-After` as milliseconds.
 */

const record = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** The violations of a problem as `propriedade: razao` lines. */
const violations = (v: unknown): ReadonlyArray<string> =>
  Array.isArray(v)
    ? v.flatMap((item) => {
        const r = record(item)
        const what = [str(r.propriedade), str(r.razao)].filter((s) => s !== undefined).join(": ")
        return what.length > 0 ? [what] : []
      })
    : []

/** Log fields of a PSP's answer: `pspStatus`, and each part of its problem it carries. */
export const fields = (status: number, body: unknown): Record<string, string | number> => {
  const b = record(body)
  const listed = violations(b.violacoes)
  const text = typeof body === "string" && body.length > 0 ? body.slice(0, 500) : undefined
  const parts: Record<string, string | undefined> = {
    pspType: str(b.type),
    pspTitle: str(b.title) ?? str(b.nome),
    pspDetail: str(b.detail) ?? str(b.mensagem),
    pspViolacoes: listed.length > 0 ? listed.join("; ") : undefined,
    pspBody: text
  }
  const out: Record<string, string | number> = { pspStatus: status }
  for (const [k, v] of Object.entries(parts)) if (v !== undefined) out[k] = v
  return out
}

/** One sentence of a PSP's answer: `HTTP 400 CobOperacaoInvalida: detail (cob.chave: razao)`. */
export const describe = (status: number, body: unknown): string => {
  const f = fields(status, body)
  const type = typeof f.pspType === "string" ? f.pspType.replace(/^.*\//, "") : undefined
  const head = [`HTTP ${status}`, type ?? f.pspTitle].filter((s) => s !== undefined).join(" ")
  const detail = f.pspDetail ?? (type === undefined ? undefined : f.pspTitle)
  const tail = f.pspViolacoes === undefined ? "" : ` (${f.pspViolacoes})`
  return `${head}${detail === undefined ? "" : `: ${detail}`}${tail}`
}

/** A `Retry-After` (seconds or an HTTP date) as milliseconds from `now`; undefined when absent or bad. */
export const retryAfterMs = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined) return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}
