/** What a route answers, before the simulator writes it (or a fault replaces it). */
export interface Reply {
  readonly status: number
  readonly body?: unknown
  readonly contentType?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** One violation of an RFC 7807 problem, as the API Pix lists them. */
export interface Violacao {
  readonly razao: string
  readonly propriedade: string
}

/** A JSON reply. */
export const json = (status: number, body: unknown): Reply => ({ status, body })

/** An empty reply. */
export const empty = (status: number): Reply => ({ status })

/**
 * An RFC 7807 problem in the API Pix's shape: `type` is
 * `https://pix.bcb.gov.br/api/v2/error/<TipoErro>`, with `violacoes` for schema errors.
 */
export const problem = (
  status: number,
  tipo: string,
  title: string,
  detail: string,
  violacoes?: ReadonlyArray<Violacao>
): Reply => ({
  status,
  contentType: "application/problem+json",
  body: {
    type: `https://pix.bcb.gov.br/api/v2/error/${tipo}`,
    title,
    status,
    detail,
    ...(violacoes && violacoes.length > 0 ? { violacoes } : {})
  }
})

/** An error in Efí's own shape (`nome`, `mensagem`), used by the send API. */
export const efiError = (status: number, nome: string, mensagem: string): Reply => ({
  status,
  body: { nome, mensagem }
})
