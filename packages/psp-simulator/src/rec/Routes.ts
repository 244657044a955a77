/**
 * The API Pix routes of Pix Automático (paths under `/v2`): `/locrec`, `/rec`, `/solicrec`,
 * `/cobr` with `/cobr/{txid}/retentativa/{data}`, `/webhookrec` and `/webhookcobr`.
 */
import type { Bank } from "../Bank.js"
import { json } from "../Reply.js"
import { asObject, boundedString, type Route } from "../Route.js"
import type { Automatico } from "./Automatico.js"
import { isDate, today } from "./Calendar.js"
import { cobrRoutes } from "./CobrRoutes.js"
import { recCompletaJson, recGeradaJson, solicRecJson } from "./Json.js"
import { locRoutes, webhookRoutes } from "./LocRoutes.js"
import type { Rec } from "./Model.js"
import { collector, documento, idRecPattern, page, parseListQuery, parseRec, txidPattern } from "./Parse.js"
import { invalid, notFound } from "./Problems.js"
import { dadosQR } from "./Qr.js"

const isFinalRec = (rec: Rec) =>
  rec.status === "EXPIRADA" || rec.status === "CANCELADA" || rec.status === "REJEITADA"
/** The merchant as the simulated PSP knows it (the recurrence's `recebedor`). */
const merchantCnpj = "11222333000181"

/** `POST /rec`: a new recurrence, CRIADA, on a free location when it names one. */
const createRec = (a: Automatico, bank: Bank, body: unknown) => {
  a.sweep()
  const { violacoes, add } = collector()
  const input = parseRec(body, today(a.settings.now()), add)
  const loc = input?.loc === undefined ? undefined : a.state.locs.get(input.loc)
  if (input?.loc !== undefined && !loc) add("rec.loc", "The location rec.loc does not exist.")
  if (loc?.idRec !== undefined) add("rec.loc", "The location rec.loc is used by another recurrence.")
  if (violacoes.length > 0 || !input)
    return invalid("RecOperacaoInvalida", "A recorrência não respeita o schema.", violacoes)
  const now = a.settings.now()
  const rec: Rec = {
    idRec: a.newIdRec(input.politicaRetentativa === "PERMITE_3R_7D"),
    criacao: now,
    vinculo: input.vinculo,
    calendario: input.calendario,
    valor: input.valor,
    politicaRetentativa: input.politicaRetentativa,
    recebedor: {
      cnpj: merchantCnpj,
      nome: bank.settings.merchantName,
      ...(input.convenio === undefined ? {} : { convenio: input.convenio })
    },
    status: "CRIADA",
    atualizacao: [{ status: "CRIADA", data: now }],
    ativacao: {
      tipoJornada: "AGUARDANDO_DEFINICAO",
      ...(input.txid === undefined ? {} : { dadosJornada: { txid: input.txid } })
    },
    solicitacoes: [],
    semSaldo: 0
  }
  if (loc) {
    loc.idRec = rec.idRec
    rec.loc = loc.id
  }
  a.state.recs.set(rec.idRec, rec)
  return json(201, recGeradaJson(rec, a.state))
}

/** `GET /rec`: the recurrences created in a period, filtered. */
const listRecs = (a: Automatico, query: URLSearchParams) => {
  a.sweep()
  const { violacoes, add } = collector()
  const q = parseListQuery(query, add)
  const presente = query.get("locationPresente")
  if (presente !== null && presente !== "true" && presente !== "false")
    add("locationPresente", "true or false.")
  if (violacoes.length > 0 || !q.inicio || !q.fim)
    return invalid("RecConsultaInvalida", "The query does not follow the schema.", violacoes)
  const { inicio, fim } = q
  const cpf = query.get("cpf")
  const cnpj = query.get("cnpj")
  const status = query.get("status")
  const convenio = query.get("convenio")
  const recs = [...a.state.recs.values()]
    .filter((r) => r.criacao >= inicio && r.criacao <= fim)
    .filter((r) => cpf === null || ("cpf" in r.vinculo.devedor && r.vinculo.devedor.cpf === cpf))
    .filter((r) => cnpj === null || ("cnpj" in r.vinculo.devedor && r.vinculo.devedor.cnpj === cnpj))
    .filter((r) => presente === null || (r.loc !== undefined) === (presente === "true"))
    .filter((r) => status === null || r.status === status)
    .filter((r) => convenio === null || r.recebedor.convenio === convenio)
  const { parametros, items } = page(recs, q, {
    ...(cpf === null ? {} : { cpf }),
    ...(cnpj === null ? {} : { cnpj }),
    ...(status === null ? {} : { status })
  })
  return json(200, { parametros, recs: items.map((r) => recCompletaJson(r, a.state)) })
}

/** `PATCH /rec/{idRec}`: revises a recurrence, or cancels it. */
const reviseRec = (a: Automatico, params: Readonly<Record<string, string>>, body: unknown) => {
  a.sweep()
  const rec = a.state.recs.get(params.idRec)
  if (!rec) return notFound("RecNaoEncontrada", `No recurrence ${params.idRec}.`)
  const { violacoes, add } = collector()
  const revision = asObject(body)
  if (!revision) add("rec", "The body must be a JSON object.")
  if (isFinalRec(rec)) add("rec.status", `The recurrence is ${rec.status}: it can no longer be revised.`)
  if (revision?.status !== undefined && revision.status !== "CANCELADA")
    add("rec.status", "status can only be set to CANCELADA.")
  const nome = asObject(asObject(revision?.vinculo)?.devedor)?.nome
  if (nome !== undefined && boundedString(nome, 140) === undefined)
    add("rec.vinculo.devedor.nome", "nome must be 1 to 140 characters.")
  const dataInicial = asObject(revision?.calendario)?.dataInicial
  if (dataInicial !== undefined) {
    if (rec.status !== "CRIADA")
      add("rec.calendario.dataInicial", "dataInicial can only change while CRIADA.")
    else if (!isDate(dataInicial) || dataInicial < today(rec.criacao))
      add("rec.calendario.dataInicial", "dataInicial must be a date, not before the recurrence's creation.")
  }
  const locId = revision?.loc
  const loc = typeof locId === "number" ? a.state.locs.get(locId) : undefined
  if (locId !== undefined) {
    if (rec.status !== "CRIADA") add("rec.loc", "loc can only change while CRIADA.")
    else if (!loc) add("rec.loc", "The location rec.loc does not exist.")
    else if (loc.idRec !== undefined && loc.idRec !== rec.idRec)
      add("rec.loc", "The location rec.loc is used by another recurrence.")
  }
  const txid = asObject(asObject(revision?.ativacao)?.dadosJornada)?.txid
  if (txid !== undefined && !(typeof txid === "string" && txidPattern.test(txid)))
    add("rec.ativacao.dadosJornada.txid", "txid must be 26 to 35 letters or digits.")
  if (violacoes.length > 0)
    return invalid("RecOperacaoInvalida", "A recorrência não pode ser revisada.", violacoes)
  if (typeof nome === "string") rec.vinculo.devedor = { ...rec.vinculo.devedor, nome }
  if (typeof dataInicial === "string") rec.calendario.dataInicial = dataInicial
  if (loc) {
    const old = rec.loc === undefined ? undefined : a.state.locs.get(rec.loc)
    if (old) delete old.idRec
    loc.idRec = rec.idRec
    rec.loc = loc.id
  }
  if (typeof txid === "string") rec.ativacao.dadosJornada = { txid }
  if (revision?.status === "CANCELADA")
    void a.cancel(rec, "USUARIO_RECEBEDOR", "SLCR", "Cancelamento solicitado pelo usuário recebedor")
  return json(200, recGeradaJson(rec, a.state))
}

/** `POST /solicrec`: asks the payer to confirm a recurrence, sent to the payer's bank. */
const createSolic = (a: Automatico, body: unknown) => {
  a.sweep()
  const { violacoes, add } = collector()
  const solic = asObject(body)
  const idRec = solic?.idRec
  if (!(typeof idRec === "string" && idRecPattern.test(idRec)))
    add("solicrec.idRec", "idRec must be 29 letters or digits.")
  const rec = typeof idRec === "string" ? a.state.recs.get(idRec) : undefined
  if (typeof idRec === "string" && idRecPattern.test(idRec) && !rec)
    return notFound("RecNaoEncontrada", `No recurrence ${idRec}.`)
  const raw = asObject(solic?.calendario)?.dataExpiracaoSolicitacao
  const expira = typeof raw === "string" ? new Date(raw) : undefined
  if (!expira || Number.isNaN(expira.getTime()))
    add("solicrec.calendario", "calendario.dataExpiracaoSolicitacao must be a date-time.")
  else if (expira < a.settings.now())
    add(
      "solicrec.calendario.dataExpiracaoSolicitacao",
      "dataExpiracaoSolicitacao is before the request's creation."
    )
  const destino = asObject(solic?.destinatario)
  const conta = boundedString(destino?.conta, 20)
  const ispb = destino?.ispbParticipante
  const agencia = destino?.agencia
  const doc = documento(destino, "solicrec.destinatario", add)
  if (!destino || conta === undefined || !(typeof ispb === "string" && /^[0-9A-Z]{8}$/.test(ispb)))
    add("solicrec.destinatario", "destinatario needs conta (<= 20), ispbParticipante (8) and a cpf or cnpj.")
  if (agencia !== undefined && boundedString(agencia, 4) === undefined)
    add("solicrec.destinatario.agencia", "agencia: at most 4 characters.")
  if (rec && rec.status !== "CRIADA") add("solicrec.idRec", `The recurrence is ${rec.status}, not CRIADA.`)
  const open = rec?.solicitacoes.some((id) => {
    const s = a.state.solicitacoes.get(id)
    return s && (s.status === "CRIADA" || s.status === "ENVIADA" || s.status === "RECEBIDA")
  })
  if (open) add("solicrec.idRec", "There is an open request for this idRec.")
  if (violacoes.length > 0 || !rec || !expira || !doc || conta === undefined)
    return invalid("SolicRecOperacaoInvalida", "A solicitação não respeita o schema.", violacoes)
  const now = a.settings.now()
  const created = {
    idSolicRec: a.newIdSolicRec(),
    idRec: rec.idRec,
    dataExpiracaoSolicitacao: expira,
    destinatario: {
      conta,
      ispbParticipante: ispb as string,
      ...(typeof agencia === "string" ? { agencia } : {}),
      ...doc
    },
    status: "CRIADA" as const,
    atualizacao: [{ status: "CRIADA" as const, data: now }]
  }
  a.state.solicitacoes.set(created.idSolicRec, created)
  rec.solicitacoes.push(created.idSolicRec)
  const reply = json(201, solicRecJson(created, a.state, true, a.settings.ispb))
  // Sent to the payer's bank, which receives it: ENVIADA, then RECEBIDA.
  queueMicrotask(() => a.deliverSolic(created))
  return reply
}

const recRoutes = (a: Automatico, bank: Bank): ReadonlyArray<Route> => [
  {
    name: "rec.post",
    method: "POST",
    path: "/v2/rec",
    scope: "rec.write",
    handle: ({ body }) => createRec(a, bank, body)
  },
  {
    name: "rec.list",
    method: "GET",
    path: "/v2/rec",
    scope: "rec.read",
    handle: ({ query }) => listRecs(a, query)
  },
  {
    name: "rec.get",
    method: "GET",
    path: "/v2/rec/:idRec",
    scope: "rec.read",
    handle: ({ params, query }) => {
      a.sweep()
      const rec = a.state.recs.get(params.idRec)
      if (!rec) return notFound("RecNaoEncontrada", `No recurrence ${params.idRec}.`)
      const qr = dadosQR(a, bank, rec, query.get("txid") ?? undefined)
      if ("violacao" in qr)
        return invalid("RecConsultaInvalida", "The query does not make sense for this recurrence.", [
          qr.violacao
        ])
      return json(200, recCompletaJson(rec, a.state, qr.dados))
    }
  },
  {
    name: "rec.patch",
    method: "PATCH",
    path: "/v2/rec/:idRec",
    scope: "rec.write",
    handle: ({ params, body }) => reviseRec(a, params, body)
  }
]

const solicRoutes = (a: Automatico): ReadonlyArray<Route> => [
  {
    name: "solicrec.post",
    method: "POST",
    path: "/v2/solicrec",
    scope: "solicrec.write",
    handle: ({ body }) => createSolic(a, body)
  },
  {
    name: "solicrec.get",
    method: "GET",
    path: "/v2/solicrec/:id",
    scope: "solicrec.read",
    handle: ({ params }) => {
      a.sweep()
      const solic = a.state.solicitacoes.get(params.id)
      return solic
        ? json(200, solicRecJson(solic, a.state, true, a.settings.ispb))
        : notFound("SolicRecNaoEncontrada", `No request ${params.id}.`)
    }
  },
  {
    name: "solicrec.patch",
    method: "PATCH",
    path: "/v2/solicrec/:id",
    scope: "solicrec.write",
    handle: ({ params, body }) => {
      a.sweep()
      const solic = a.state.solicitacoes.get(params.id)
      if (!solic) return notFound("SolicRecNaoEncontrada", `No request ${params.id}.`)
      if (asObject(body)?.status !== "CANCELADA")
        return invalid("SolicRecOperacaoInvalida", "status can only be set to CANCELADA.", [
          { propriedade: "solicrec.status", razao: "status must be CANCELADA." }
        ])
      if (solic.status !== "CRIADA" && solic.status !== "ENVIADA" && solic.status !== "RECEBIDA")
        return invalid(
          "SolicRecOperacaoInvalida",
          "Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA, ENVIADA ou RECEBIDA."
        )
      a.solicStatus(solic, "CANCELADA")
      return json(201, solicRecJson(solic, a.state, true, a.settings.ispb))
    }
  }
]

/** Every Pix Automático route, bound to the simulator's recurring side. */
export const automaticoRoutes = (a: Automatico, bank: Bank): ReadonlyArray<Route> => [
  ...locRoutes(a),
  ...recRoutes(a, bank),
  ...solicRoutes(a),
  ...cobrRoutes(a),
  ...webhookRoutes(a, "rec"),
  ...webhookRoutes(a, "cobr")
]
