/** `/cobr` (recurring charges, one per cycle) and `/cobr/{txid}/retentativa/{data}`. */
import { randomAlphanumeric } from "../Model.js"
import { json } from "../Reply.js"
import { asObject, type Route } from "../Route.js"
import type { Automatico } from "./Automatico.js"
import { addDays, cycleOf, daysBetween, isDate, settlementDate, today } from "./Calendar.js"
import { cobrJson } from "./Json.js"
import type { CobR } from "./Model.js"
import { collector, page, parseCobR, parseListQuery, txidPattern } from "./Parse.js"
import { invalid, notFound } from "./Problems.js"

const open = (cobr: CobR) => cobr.status === "CRIADA" || cobr.status === "ATIVA"
const pending = (cobr: CobR) =>
  cobr.tentativas.some((t) => t.status === "SOLICITADA" || t.status === "AGENDADA")

const create = (a: Automatico, txid: string, body: unknown) => {
  a.sweep()
  const { violacoes, add } = collector()
  if (!txidPattern.test(txid)) add("cobr.txid", "txid must be 26 to 35 letters or digits.")
  if (a.state.cobsr.has(txid)) add("cobr.txid", "O campo cobr.txid encontra-se em uso.")
  const input = parseCobR(body, add)
  const rec = input ? a.state.recs.get(input.idRec) : undefined
  const day = today(a.settings.now())
  if (input && !rec) add("cobr.idRec", `No recurrence ${input.idRec}.`)
  if (input && rec) {
    if (rec.status !== "APROVADA") add("cobr.idRec", `The recurrence is ${rec.status}, not APROVADA.`)
    const due = input.dataDeVencimento
    const ahead = daysBetween(day, due)
    if (due < day)
      add("cobr.calendario.dataDeVencimento", "dataDeVencimento is before the charge's creation.")
    else if (ahead < 2 || ahead > 10)
      add("cobr.calendario.dataDeVencimento", "A cobr is created 2 to 10 days before its dataDeVencimento.")
    const { dataInicial, dataFinal, periodicidade } = rec.calendario
    const cycle = cycleOf(dataInicial, periodicidade, due)
    if (cycle < 0)
      add("cobr.calendario.dataDeVencimento", "dataDeVencimento is before the recurrence's dataInicial.")
    if (dataFinal !== undefined && due > dataFinal)
      add("cobr.calendario.dataDeVencimento", "dataDeVencimento is after the recurrence's dataFinal.")
    const same = [...a.state.cobsr.values()].some(
      (c) =>
        c.idRec === rec.idRec &&
        c.status !== "REJEITADA" &&
        c.status !== "CANCELADA" &&
        cycleOf(dataInicial, periodicidade, c.dataDeVencimento) === cycle
    )
    if (same)
      add("cobr.idRec", "There is a cobr of this idRec, not REJEITADA or CANCELADA, in the same cycle.")
    if (rec.valor.valorRec !== undefined && rec.valor.valorRec !== input.valor.original)
      add("cobr.valor", `valor.original must be the recurrence's valorRec ${rec.valor.valorRec}.`)
  }
  if (violacoes.length > 0 || !input || !rec)
    return invalid("CobROperacaoInvalida", "A cobrança não respeita o schema.", violacoes)
  const now = a.settings.now()
  const cobr: CobR = {
    ...input,
    txid,
    criacao: now,
    status: "CRIADA",
    atualizacao: [{ status: "CRIADA", data: now }],
    tentativas: []
  }
  a.state.cobsr.set(txid, cobr)
  const reply = json(201, cobrJson(cobr, a.state))
  // The payer's bank schedules the debit: the attempt AGND on the (business) settlement date, ATIVA.
  queueMicrotask(() => {
    if (cobr.status !== "CRIADA") return
    a.schedule(cobr, settlementDate(cobr.dataDeVencimento, cobr.ajusteDiaUtil), "AGND")
    void a.notifyCobr(cobr)
  })
  return reply
}

/** `GET /cobr`: the recurring charges created in a period, filtered. */
const list = (a: Automatico, query: URLSearchParams) => {
  a.sweep()
  const { violacoes, add } = collector()
  const q = parseListQuery(query, add)
  const idRec = query.get("idRec")
  if (idRec !== null && !/^[a-zA-Z0-9]{29}$/.test(idRec)) add("idRec", "idRec must be 29 letters or digits.")
  if (violacoes.length > 0 || !q.inicio || !q.fim)
    return invalid("CobRConsultaInvalida", "The query does not follow the schema.", violacoes)
  const { inicio, fim } = q
  const cpf = query.get("cpf")
  const cnpj = query.get("cnpj")
  const status = query.get("status")
  const convenio = query.get("convenio")
  const cobsr = [...a.state.cobsr.values()].filter((c) => {
    const devedor = a.state.recs.get(c.idRec)?.vinculo.devedor
    const rec = a.state.recs.get(c.idRec)
    return (
      c.criacao >= inicio &&
      c.criacao <= fim &&
      (idRec === null || c.idRec === idRec) &&
      (cpf === null || (devedor !== undefined && "cpf" in devedor && devedor.cpf === cpf)) &&
      (cnpj === null || (devedor !== undefined && "cnpj" in devedor && devedor.cnpj === cnpj)) &&
      (status === null || c.status === status) &&
      (convenio === null || rec?.recebedor.convenio === convenio)
    )
  })
  const { parametros, items } = page(cobsr, q, {
    ...(idRec === null ? {} : { idRec }),
    ...(status === null ? {} : { status })
  })
  return json(200, { parametros, cobsr: items.map((c) => cobrJson(c, a.state)) })
}

/** `PATCH /cobr/{txid}`: the receiver cancels a charge before its first attempt. */
const cancel = (a: Automatico, params: Readonly<Record<string, string>>, body: unknown) => {
  a.sweep()
  const cobr = a.state.cobsr.get(params.txid)
  if (!cobr) return notFound("CobRNaoEncontrado", `No cobr ${params.txid}.`)
  if (asObject(body)?.status !== "CANCELADA")
    return invalid("CobROperacaoInvalida", "A revisão não respeita o schema.", [
      { propriedade: "cobr.status", razao: "status can only be set to CANCELADA." }
    ])
  if (!open(cobr))
    return invalid("CobROperacaoInvalida", `The cobr is ${cobr.status}: it can no longer be cancelled.`, [
      { propriedade: "cobr.status", razao: `The cobr is ${cobr.status}.` }
    ])
  const first =
    cobr.tentativas[0]?.dataLiquidacao ?? settlementDate(cobr.dataDeVencimento, cobr.ajusteDiaUtil)
  if (today(a.settings.now()) >= first)
    return invalid(
      "CobROperacaoInvalida",
      "Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação."
    )
  for (const t of cobr.tentativas)
    if (t.status === "SOLICITADA" || t.status === "AGENDADA") a.attemptStatus(t, "CANCELADA")
  cobr.encerramento = {
    cancelamento: {
      solicitante: "USUARIO_RECEBEDOR",
      codigo: "SLCR",
      descricao: "Cancelamento de agendamento solicitado pelo usuário recebedor"
    }
  }
  a.cobrStatus(cobr, "CANCELADA")
  void a.notifyCobr(cobr)
  return json(200, cobrJson(cobr, a.state))
}

/** `POST /cobr/{txid}/retentativa/{data}`: schedules a new attempt on a later date. */
const retry = (a: Automatico, params: Readonly<Record<string, string>>) => {
  a.sweep()
  const cobr = a.state.cobsr.get(params.txid)
  if (!cobr) return notFound("CobRNaoEncontrado", `No cobr ${params.txid}.`)
  const rec = a.state.recs.get(cobr.idRec)
  const fail = (detail: string, razao = detail) =>
    invalid("CobROperacaoInvalida", detail, [{ propriedade: "data", razao }])
  if (rec?.politicaRetentativa !== "PERMITE_3R_7D")
    return fail("A política configurada na recorrência não permite retentativa de cobrança.")
  const data = params.data
  if (!isDate(data)) return fail("data must be a date YYYY-MM-DD.")
  if (cobr.status !== "ATIVA") return fail(`The cobr is ${cobr.status}, not ATIVA.`)
  if (pending(cobr)) return fail("Existe uma tentativa com status SOLICITADA ou AGENDADA.")
  if (data <= today(a.settings.now())) return fail("O parâmetro data não corresponde a uma data futura.")
  if (cobr.tentativas.some((t) => t.dataLiquidacao === data))
    return fail("Existe uma tentativa vigente para a data informada.")
  const first = cobr.tentativas[0]?.dataLiquidacao ?? cobr.dataDeVencimento
  if (data > addDays(first, 7)) return fail("Retries are allowed within 7 days after the settlement date.")
  if (cobr.tentativas.filter((t) => t.tipo === "NTAG").length >= 3)
    return fail("At most 3 retries per charge.")
  a.schedule(cobr, data, "NTAG")
  void a.notifyCobr(cobr)
  return json(201, cobrJson(cobr, a.state))
}

/** The routes of recurring charges. */
export const cobrRoutes = (a: Automatico): ReadonlyArray<Route> => [
  {
    name: "cobr.put",
    method: "PUT",
    path: "/v2/cobr/:txid",
    scope: "cobr.write",
    handle: ({ params, body }) => create(a, params.txid, body)
  },
  {
    name: "cobr.post",
    method: "POST",
    path: "/v2/cobr",
    scope: "cobr.write",
    handle: ({ body }) => create(a, randomAlphanumeric(32).toLowerCase(), body)
  },
  {
    name: "cobr.get",
    method: "GET",
    path: "/v2/cobr/:txid",
    scope: "cobr.read",
    handle: ({ params }) => {
      a.sweep()
      const cobr = a.state.cobsr.get(params.txid)
      return cobr
        ? json(200, cobrJson(cobr, a.state))
        : notFound("CobRNaoEncontrado", `No cobr ${params.txid}.`)
    }
  },
  {
    name: "cobr.list",
    method: "GET",
    path: "/v2/cobr",
    scope: "cobr.read",
    handle: ({ query }) => list(a, query)
  },
  {
    name: "cobr.patch",
    method: "PATCH",
    path: "/v2/cobr/:txid",
    scope: "cobr.write",
    handle: ({ params, body }) => cancel(a, params, body)
  },
  {
    name: "cobr.retentativa",
    method: "POST",
    path: "/v2/cobr/:txid/retentativa/:data",
    scope: "cobr.write",
    handle: ({ params }) => retry(a, params)
  }
]
