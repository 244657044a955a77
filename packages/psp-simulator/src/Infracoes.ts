/**
 * MED infractions in Efí's shape (outside the BCB standard): `GET /v2/gn/infracoes` lists the
 * infractions opened against PIX the account received, paginated like the API Pix lists
 * (`{ infracoes: [...], parametros: { inicio, fim, paginacao } }`), and
 * `POST /v2/gn/infracoes/{idInfracao}/defesa` takes the account holder's answer
 * (`{ analise: "aceito" | "rejeitado", justificativa }`): refused with a problem+json 4xx after
 * the deadline (`prazo`) or once the infraction is concluded, idempotent for an identical repeat.
 *
 * The payer's bank side is played by control calls: `open` (an infraction on a received PIX,
 * with a precautionary block of the claimed amount by default), `conclude` (`ACEITA`: the bank
 * performs a devolução of natureza `MED_FRAUDE` / `MED_OPERACIONAL`, reported by the `/pix`
 * callback and `GET /pix`, partial when asked; `REJEITADA`; `CANCELADA`) and `expire` (the
 * deadline passes now).
 *
 * Statuses, as Efí's SDK names them: `ABERTA`, `EM_DEFESA` (answered, under analysis), `ACEITA`,
 * `REJEITADA`, `CANCELADA`.
 */
import { type Bank, ControlError } from "./Bank.js"
import type { CallbackMode } from "./Callbacks.js"
import { fromCents, randomAlphanumeric, toCents, valorPattern } from "./Model.js"
import { json, problem, type Reply } from "./Reply.js"
import { asObject, type Route } from "./Route.js"

/** An infraction's status (Efí). */
export type InfracaoStatus = "ABERTA" | "EM_DEFESA" | "ACEITA" | "REJEITADA" | "CANCELADA"

/** What the payer's bank claims: a fraud or an operational failure. */
export type InfracaoTipo = "fraude" | "falha_operacional"

/** The account holder's answer. */
export interface Defesa {
  readonly analise: "aceito" | "rejeitado"
  readonly justificativa: string
  readonly horario: Date
}

/** An infraction against a received PIX. */
export interface Infracao {
  readonly idInfracao: string
  readonly endToEndId: string
  readonly chave: string
  status: InfracaoStatus
  readonly tipo: InfracaoTipo
  /** Efí's `tipoSituacao` (golpe, acesso fraudulento, ...). */
  readonly tipoSituacao: string
  readonly motivo: string
  /** The amount claimed ("12.34"). */
  readonly valor: string
  readonly criacao: Date
  prazo: Date
  /** The precautionary block, when the bank blocked the amount. */
  readonly bloqueioCautelar?: { readonly valor: string; readonly horario: Date }
  defesa?: Defesa
  conclusao?: Date
  /** The `rtrId` of the devolução performed when upheld. */
  rtrId?: string
}

/** Options of `open`. */
export interface OpenInfracao {
  readonly tipo?: InfracaoTipo
  readonly motivo?: string
  /** The amount claimed; the PIX's amount when absent. */
  readonly valor?: string
  /** Whether the bank blocks the amount (default true) and how much (default: the claim). */
  readonly bloqueio?: boolean
  readonly valorBloqueio?: string
  /** How long the account holder has to answer (default 7 days). */
  readonly prazoMs?: number
}

/** Options of `conclude`. */
export interface ConcludeInfracao {
  readonly status: "ACEITA" | "REJEITADA" | "CANCELADA"
  /** `ACEITA`: what the bank returns (default: the claim, at most what is left of the PIX). */
  readonly valorDevolvido?: string
  /** How the devolução's `/pix` callback is delivered. */
  readonly callback?: CallbackMode
}

const iso = (at: Date) => at.toISOString()

const sevenDays = 7 * 24 * 60 * 60 * 1000

/** An infraction in Efí's JSON. */
export const infracaoJson = (i: Infracao) => ({
  idInfracao: i.idInfracao,
  endToEndId: i.endToEndId,
  chave: i.chave,
  status: i.status,
  tipo: i.tipo,
  tipoSituacao: i.tipoSituacao,
  motivo: i.motivo,
  valor: i.valor,
  criacao: iso(i.criacao),
  prazo: iso(i.prazo),
  ...(i.bloqueioCautelar
    ? { bloqueioCautelar: { valor: i.bloqueioCautelar.valor, horario: iso(i.bloqueioCautelar.horario) } }
    : {}),
  ...(i.defesa
    ? {
        defesa: {
          analise: i.defesa.analise,
          justificativa: i.defesa.justificativa,
          horario: iso(i.defesa.horario)
        }
      }
    : {}),
  ...(i.conclusao ? { conclusao: iso(i.conclusao) } : {}),
  ...(i.rtrId ? { rtrId: i.rtrId } : {})
})

/** The simulated bank's infractions. */
export class Infracoes {
  readonly all = new Map<string, Infracao>()

  constructor(readonly bank: Bank) {}

  /** The payer's bank opens an infraction on a received PIX. */
  open(endToEndId: string, options: OpenInfracao = {}): Infracao {
    const pix = this.bank.state.pix.get(endToEndId)
    if (!pix) throw new ControlError(404, `no Pix with endToEndId ${endToEndId}`)
    const valor = options.valor ?? pix.valor
    if (!valorPattern.test(valor) || toCents(valor) === 0 || toCents(valor) > toCents(pix.valor))
      throw new ControlError(400, `valor must look like 12.34, above 0.00 and at most ${pix.valor}`)
    const bloqueio = options.valorBloqueio ?? valor
    if (!valorPattern.test(bloqueio) || toCents(bloqueio) > toCents(valor))
      throw new ControlError(400, `valorBloqueio must look like 12.34 and be at most ${valor}`)
    const now = this.bank.settings.now()
    const tipo = options.tipo ?? "fraude"
    const infracao: Infracao = {
      idInfracao: `INF${randomAlphanumeric(20)}`,
      endToEndId,
      chave: pix.chave,
      status: "ABERTA",
      tipo,
      tipoSituacao: tipo === "fraude" ? "golpe" : "outro",
      motivo: options.motivo ?? (tipo === "fraude" ? "Pagador relata golpe" : "Falha operacional do PSP"),
      valor,
      criacao: now,
      prazo: new Date(now.getTime() + (options.prazoMs ?? sevenDays)),
      ...(options.bloqueio === false || toCents(bloqueio) === 0
        ? {}
        : { bloqueioCautelar: { valor: bloqueio, horario: now } })
    }
    this.all.set(infracao.idInfracao, infracao)
    return infracao
  }

  private get(idInfracao: string) {
    const i = this.all.get(idInfracao)
    if (!i) throw new ControlError(404, `no infraction ${idInfracao}`)
    return i
  }

  /** The deadline passes now (a defence is refused from here on). */
  expire(idInfracao: string): Infracao {
    const i = this.get(idInfracao)
    i.prazo = new Date(this.bank.settings.now().getTime() - 1)
    return i
  }

  /** The bank concludes: upheld (a MED devolução, with its callback), rejected or cancelled. */
  async conclude(idInfracao: string, options: ConcludeInfracao): Promise<Infracao> {
    const i = this.get(idInfracao)
    if (i.status !== "ABERTA" && i.status !== "EM_DEFESA")
      throw new ControlError(409, `infraction ${idInfracao} is already ${i.status}`)
    if (options.status === "ACEITA") {
      const pix = this.bank.state.pix.get(i.endToEndId)
      if (!pix) throw new ControlError(404, `no Pix with endToEndId ${i.endToEndId}`)
      const left =
        toCents(pix.valor) -
        pix.devolucoes.filter((d) => d.status !== "NAO_REALIZADO").reduce((s, d) => s + toCents(d.valor), 0)
      const valor = options.valorDevolvido ?? fromCents(Math.min(toCents(i.valor), left))
      if (!valorPattern.test(valor)) throw new ControlError(400, `valorDevolvido must look like 12.34`)
      i.status = "ACEITA"
      i.conclusao = this.bank.settings.now()
      if (toCents(valor) > 0) {
        const devolucao = await this.bank.medReturn(i.endToEndId, {
          valor,
          natureza: i.tipo === "fraude" ? "MED_FRAUDE" : "MED_OPERACIONAL",
          ...(options.callback === undefined ? {} : { callback: options.callback })
        })
        i.rtrId = devolucao.rtrId
      }
      return i
    }
    i.status = options.status
    i.conclusao = this.bank.settings.now()
    return i
  }

  /** The account holder's answer (the `defesa` route). */
  defend(idInfracao: string, body: unknown): Reply {
    const i = this.all.get(idInfracao)
    if (!i)
      return problem(404, "InfracaoNaoEncontrada", "Infraction not found.", `No infraction ${idInfracao}.`)
    const b = asObject(body)
    const analise = b?.analise
    const justificativa = b?.justificativa
    if (
      (analise !== "aceito" && analise !== "rejeitado") ||
      typeof justificativa !== "string" ||
      justificativa.trim().length === 0 ||
      justificativa.length > 2000
    )
      return problem(400, "SchemaInvalido", "Invalid request.", "The defence does not match the schema.", [
        ...(analise !== "aceito" && analise !== "rejeitado"
          ? [{ razao: 'Must be "aceito" or "rejeitado".', propriedade: "analise" }]
          : []),
        ...(typeof justificativa !== "string" ||
        justificativa.trim().length === 0 ||
        justificativa.length > 2000
          ? [{ razao: "A text of 1 to 2000 characters.", propriedade: "justificativa" }]
          : [])
      ])
    // An identical repeat answers as the first did.
    if (i.defesa && i.defesa.analise === analise && i.defesa.justificativa === justificativa)
      return json(200, infracaoJson(i))
    if (i.defesa || i.status !== "ABERTA")
      return problem(
        409,
        "InfracaoNaoPermiteDefesa",
        "The infraction takes no defence.",
        `Infraction ${idInfracao} is ${i.status}${i.defesa ? " and already answered" : ""}.`
      )
    const now = this.bank.settings.now()
    if (now.getTime() > i.prazo.getTime())
      return problem(
        422,
        "PrazoDefesaExpirado",
        "The deadline to answer has passed.",
        `The deadline of infraction ${idInfracao} was ${iso(i.prazo)}.`
      )
    i.defesa = { analise, justificativa, horario: now }
    i.status = "EM_DEFESA"
    return json(200, infracaoJson(i))
  }

  /** The list route: infractions created within `inicio`..`fim`, oldest first, paginated. */
  list(query: URLSearchParams): Reply {
    const inicio = Date.parse(query.get("inicio") ?? "")
    const fim = Date.parse(query.get("fim") ?? "")
    if (!Number.isFinite(inicio) || !Number.isFinite(fim) || fim < inicio)
      return problem(400, "ParametroInvalido", "Invalid parameters.", "inicio and fim are required dates.", [
        { razao: "An RFC 3339 date, inicio before fim.", propriedade: "inicio" }
      ])
    const pagina = Number(query.get("paginacao.paginaAtual") ?? "0")
    const porPagina = Number(query.get("paginacao.itensPorPagina") ?? "100")
    if (
      !Number.isInteger(pagina) ||
      pagina < 0 ||
      !Number.isInteger(porPagina) ||
      porPagina < 1 ||
      porPagina > 1000
    )
      return problem(400, "ParametroInvalido", "Invalid parameters.", "Bad paginacao.")
    const found = [...this.all.values()]
      .filter((i) => i.criacao.getTime() >= inicio && i.criacao.getTime() <= fim)
      .sort((a, b) => a.criacao.getTime() - b.criacao.getTime())
    const paginas = Math.max(1, Math.ceil(found.length / porPagina))
    return json(200, {
      parametros: {
        inicio: new Date(inicio).toISOString(),
        fim: new Date(fim).toISOString(),
        paginacao: {
          paginaAtual: pagina,
          itensPorPagina: porPagina,
          quantidadeDePaginas: paginas,
          quantidadeTotalDeItens: found.length
        }
      },
      infracoes: found.slice(pagina * porPagina, (pagina + 1) * porPagina).map(infracaoJson)
    })
  }
}

/** The infractions' routes over `infracoes`. */
export const infracoesRoutes = (infracoes: Infracoes): ReadonlyArray<Route> => [
  {
    name: "infracoes.get",
    method: "GET",
    path: "/v2/gn/infracoes",
    scope: "gn.infractions.read",
    handle: ({ query }) => infracoes.list(query)
  },
  {
    name: "infracoes.defesa",
    method: "POST",
    path: "/v2/gn/infracoes/:idInfracao/defesa",
    scope: "gn.infractions.write",
    handle: ({ params, body }) => infracoes.defend(params.idInfracao, body)
  }
]
