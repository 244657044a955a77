import { type CobInput, cobJson, devolucaoJson, pixJson } from "./Bank.js"
import type * as Cobv from "./Cobv.js"
import type { Devedor } from "./Model.js"
import { toCents, valorPattern } from "./Model.js"
import { empty, json, problem, type Violacao } from "./Reply.js"
import { asObject, boundedString, type Route } from "./Route.js"

const txidPattern = /^[a-zA-Z0-9]{26,35}$/
const devolucaoIdPattern = /^[a-zA-Z0-9]{1,35}$/
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const defaultExpiracao = 86_400

const invalidCob = (violacoes: ReadonlyArray<Violacao>) =>
  problem(
    400,
    "CobOperacaoInvalida",
    "Invalid cob.",
    "The cob does not follow the schema or makes no sense.",
    violacoes
  )

type Violation = (propriedade: string, razao: string) => void

/** The `calendario.expiracao` of a cob body, in seconds: the default when absent. */
const parseExpiracao = (cob: Record<string, unknown>, violation: Violation): number => {
  let expiracao = defaultExpiracao
  if (cob.calendario !== undefined) {
    const calendario = asObject(cob.calendario)
    if (!calendario) violation("cob.calendario", "calendario must be an object.")
    else if (calendario.expiracao !== undefined) {
      const value = calendario.expiracao
      if (typeof value !== "number" || !Number.isInteger(value) || value <= 0 || value > 2_147_483_647) {
        violation("cob.calendario.expiracao", "expiracao must be a positive whole number of seconds.")
      } else expiracao = value
    }
  }
  return expiracao
}

/** The `devedor` of a cob body, when present and valid. */
const parseDevedor = (cob: Record<string, unknown>, violation: Violation): Devedor | undefined => {
  let devedor: Devedor | undefined
  if (cob.devedor !== undefined) {
    const value = asObject(cob.devedor)
    const nome = boundedString(value?.nome, 200)
    const cpf = typeof value?.cpf === "string" && /^\d{11}$/.test(value.cpf) ? value.cpf : undefined
    const cnpj = typeof value?.cnpj === "string" && /^[0-9A-Z]{14}$/.test(value.cnpj) ? value.cnpj : undefined
    if (!value || nome === undefined)
      violation("cob.devedor.nome", "devedor needs a nome of 1 to 200 characters.")
    else if ((value.cpf !== undefined) === (value.cnpj !== undefined)) {
      violation("cob.devedor", "devedor needs exactly one of cpf and cnpj.")
    } else if (value.cpf !== undefined && cpf === undefined) {
      violation("cob.devedor.cpf", "cpf must be 11 digits.")
    } else if (value.cnpj !== undefined && cnpj === undefined) {
      violation("cob.devedor.cnpj", "cnpj must be 14 digits or capital letters.")
    } else if (cpf !== undefined) devedor = { nome, cpf }
    else if (cnpj !== undefined) devedor = { nome, cnpj }
  }
  return devedor
}

/** The `infoAdicionais` of a cob body: the valid items up to the first invalid one. */
const parseInfoAdicionais = (info: unknown, violation: Violation): Array<{ nome: string; valor: string }> => {
  const infoAdicionais: Array<{ nome: string; valor: string }> = []
  if (info !== undefined) {
    if (!Array.isArray(info) || info.length > 50)
      violation("cob.infoAdicionais", "infoAdicionais: at most 50 items.")
    else {
      for (const item of info) {
        const nome = boundedString(asObject(item)?.nome, 50)
        const texto = boundedString(asObject(item)?.valor, 200)
        if (nome === undefined || texto === undefined) {
          violation("cob.infoAdicionais", "each item needs nome (<= 50) and valor (<= 200).")
          break
        }
        infoAdicionais.push({ nome, valor: texto })
      }
    }
  }
  return infoAdicionais
}

/** Checks a `PUT /cob/{txid}` body: the input, or the list of what is wrong with it. */
const parseCob = (txid: string, body: unknown, ownsKey: (chave: string) => boolean) => {
  const violacoes: Array<Violacao> = []
  const violation = (propriedade: string, razao: string) => violacoes.push({ propriedade, razao })
  if (!txidPattern.test(txid)) violation("cob.txid", "txid must be 26 to 35 letters or digits.")
  const cob = asObject(body)
  if (!cob) {
    violation("cob", "The body must be a JSON object.")
    return { violacoes }
  }
  const expiracao = parseExpiracao(cob, violation)
  const devedor = parseDevedor(cob, violation)
  const valor = asObject(cob.valor)
  const original = typeof valor?.original === "string" ? valor.original : undefined
  const modalidade = valor?.modalidadeAlteracao
  if (!valor) violation("cob.valor", "valor is required and must be an object.")
  else if (original === undefined || !valorPattern.test(original)) {
    violation("cob.valor.original", "valor.original must be a string like 12.34.")
  } else if (modalidade !== undefined && modalidade !== 0 && modalidade !== 1) {
    violation("cob.valor.modalidadeAlteracao", "modalidadeAlteracao must be 0 or 1.")
  } else if (toCents(original) === 0 && modalidade !== 1) {
    violation("cob.valor.original", "valor.original must be above 0.00 unless modalidadeAlteracao is 1.")
  }
  const chave = boundedString(cob.chave, 77)
  if (chave === undefined) violation("cob.chave", "chave is required: a Pix key of at most 77 characters.")
  else if (!ownsKey(chave)) violation("cob.chave", "chave is not a key of this account.")
  const solicitacaoPagador = cob.solicitacaoPagador
  if (solicitacaoPagador !== undefined && boundedString(solicitacaoPagador, 140, 0) === undefined) {
    violation("cob.solicitacaoPagador", "solicitacaoPagador must be a string of at most 140 characters.")
  }
  const info = cob.infoAdicionais
  const infoAdicionais = parseInfoAdicionais(info, violation)
  if (violacoes.length > 0 || original === undefined || chave === undefined) return { violacoes }
  const input: CobInput = {
    expiracao,
    ...(devedor ? { devedor } : {}),
    valor: {
      original,
      ...(modalidade === undefined ? {} : { modalidadeAlteracao: modalidade as number })
    },
    chave,
    ...(solicitacaoPagador === undefined ? {} : { solicitacaoPagador: solicitacaoPagador as string }),
    ...(info === undefined ? {} : { infoAdicionais })
  }
  return { input }
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/
const realDate = (u: unknown): u is string =>
  typeof u === "string" && datePattern.test(u) && new Date(`${u}T00:00:00Z`).toISOString().startsWith(u)

const invalidCobv = (violacoes: ReadonlyArray<Violacao>) =>
  problem(
    400,
    "CobVOperacaoInvalida",
    "Invalid cobv.",
    "The cobv does not follow the schema or makes no sense.",
    violacoes
  )

/**
 * Checks a `PUT /cobv/{txid}` body (the standard's violations for cobv): the cob parts as for a
 * cob, the calendar's due date and validity, the debtor (required), and the terms' shapes.
 */
const parseCobv = (txid: string, body: unknown, ownsKey: (chave: string) => boolean, today: string) => {
  const cobv = asObject(body)
  const valor = asObject(cobv?.valor)
  const base = parseCob(
    txid,
    cobv
      ? { ...cobv, calendario: undefined, valor: valor ? { original: valor.original } : cobv.valor }
      : body,
    ownsKey
  )
  const violacoes: Array<Violacao> = [...(base.violacoes ?? [])].map((v) => ({
    ...v,
    propriedade: v.propriedade.replace(/^cob\./, "cobv.")
  }))
  const violation = (propriedade: string, razao: string) => violacoes.push({ propriedade, razao })
  const calendario = asObject(cobv?.calendario)
  const vencimento = calendario?.dataDeVencimento
  const validade = calendario?.validadeAposVencimento ?? 30
  if (!realDate(vencimento)) violation("cobv.calendario.dataDeVencimento", "dataDeVencimento must be a date.")
  else if (vencimento < today)
    violation("cobv.calendario.dataDeVencimento", "dataDeVencimento is before the cobv's creation.")
  if (typeof validade !== "number" || !Number.isInteger(validade) || validade < 0)
    violation("cobv.calendario.validadeAposVencimento", "validadeAposVencimento must be a whole number >= 0.")
  if (cobv?.devedor === undefined) violation("cobv.devedor", "devedor (nome and cpf or cnpj) is required.")
  const rule = (name: string, max: number): Cobv.Rule | undefined => {
    const r = asObject(valor?.[name])
    if (valor?.[name] === undefined) return undefined
    const modalidade = Number(r?.modalidade)
    const ok = r && Number.isInteger(modalidade) && modalidade >= 1 && modalidade <= max
    if (!ok) {
      violation(`cobv.valor.${name}`, `${name}.modalidade must be 1 to ${max}.`)
      return undefined
    }
    if (name === "desconto" && (modalidade === 1 || modalidade === 2)) {
      const list = Array.isArray(r.descontoDataFixa) ? r.descontoDataFixa.map(asObject) : []
      if (r.valorPerc !== undefined || list.length < 1 || list.length > 3) {
        violation("cobv.valor.desconto", "modalidade 1 and 2 take descontoDataFixa (1 to 3), not valorPerc.")
        return undefined
      }
      const dates = list.map((d) => ({ data: d?.data, valorPerc: d?.valorPerc }))
      if (
        !dates.every(
          (d) => realDate(d.data) && typeof d.valorPerc === "string" && valorPattern.test(d.valorPerc)
        )
      ) {
        violation("cobv.valor.desconto.descontoDataFixa", "each item needs data and valorPerc.")
        return undefined
      }
      if (realDate(vencimento) && dates.some((d) => (d.data as string) > vencimento))
        violation("cobv.valor.desconto", "a discount date is after dataDeVencimento.")
      return { modalidade, descontoDataFixa: dates as Array<{ data: string; valorPerc: string }> }
    }
    if (typeof r.valorPerc !== "string" || !valorPattern.test(r.valorPerc)) {
      violation(`cobv.valor.${name}.valorPerc`, "valorPerc must look like 12.34.")
      return undefined
    }
    return { modalidade, valorPerc: r.valorPerc }
  }
  const multa = rule("multa", 2)
  const juros = rule("juros", 8)
  const desconto = rule("desconto", 6)
  const abatimento = rule("abatimento", 2)
  if (violacoes.length > 0 || !base.input) return { violacoes }
  const input: CobInput = {
    ...base.input,
    vencimento: {
      dataDeVencimento: vencimento as string,
      validadeAposVencimento: validade as number,
      ...(multa ? { multa } : {}),
      ...(juros ? { juros } : {}),
      ...(desconto ? { desconto } : {}),
      ...(abatimento ? { abatimento } : {})
    }
  }
  return { input, violacoes }
}

const notFound = (tipo: string, title: string, detail: string) => problem(404, tipo, title, detail)

const invalidQuery = (violacoes: ReadonlyArray<Violacao>) =>
  problem(
    400,
    "PixConsultaInvalida",
    "Invalid query.",
    "The query parameters do not follow the schema.",
    violacoes
  )

const integerParam = (query: URLSearchParams, name: string, fallback: number) => {
  const raw = query.get(name)
  if (raw === null) return fallback
  return /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN
}

const booleanParam = (query: URLSearchParams, name: string) => {
  const raw = query.get(name)
  return raw === null ? undefined : raw === "true" ? true : raw === "false" ? false : "invalid"
}

/**
 * The API Pix routes (paths under `/v2`): cob (create, read, withdraw), pix, devolução and
 * webhook.
 */
export const apiPixRoutes: ReadonlyArray<Route> = [
  {
    name: "cob.put",
    method: "PUT",
    path: "/v2/cob/:txid",
    scope: "cob.write",
    handle: ({ params, body, bank }) => {
      const parsed = parseCob(params.txid, body, (chave) => bank.ownsKey(chave))
      if (!parsed.input) return invalidCob(parsed.violacoes)
      const outcome = bank.putCob(params.txid, parsed.input, JSON.stringify(parsed.input))
      if (outcome === "conflict") {
        return invalidCob([{ propriedade: "cob.txid", razao: "txid is already used by a different cob." }])
      }
      return json(outcome.created ? 201 : 200, cobJson(outcome.cob, bank.state))
    }
  },
  {
    name: "cob.get",
    method: "GET",
    path: "/v2/cob/:txid",
    scope: "cob.read",
    handle: ({ params, bank }) => {
      const cob = bank.state.cobs.get(params.txid)
      return cob
        ? json(200, cobJson(cob, bank.state))
        : notFound("CobNaoEncontrado", "Cob not found.", `No cob with txid ${params.txid}.`)
    }
  },
  {
    // The simulator revises one thing: the receiver withdrawing an ATIVA cob.
    name: "cob.patch",
    method: "PATCH",
    path: "/v2/cob/:txid",
    scope: "cob.write",
    handle: ({ params, body, bank }) => {
      const cob = bank.state.cobs.get(params.txid)
      if (!cob) return notFound("CobNaoEncontrado", "Cob not found.", `No cob with txid ${params.txid}.`)
      const revision = asObject(body)
      const others = Object.keys(revision ?? {}).filter((name) => name !== "status")
      if (revision?.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR" || others.length > 0) {
        return invalidCob([
          {
            propriedade: "cob.status",
            razao: "The simulator revises only status, to REMOVIDA_PELO_USUARIO_RECEBEDOR."
          }
        ])
      }
      if (cob.status !== "ATIVA" && cob.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR") {
        return invalidCob([{ propriedade: "cob.status", razao: `The cob is ${cob.status}, not ATIVA.` }])
      }
      cob.status = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
      return json(200, cobJson(cob, bank.state))
    }
  },
  {
    name: "cobv.put",
    method: "PUT",
    path: "/v2/cobv/:txid",
    scope: "cobv.write",
    handle: ({ params, body, bank }) => {
      const today = new Date(bank.settings.now().getTime() - 3 * 3_600_000).toISOString().slice(0, 10)
      const parsed = parseCobv(params.txid, body, (chave) => bank.ownsKey(chave), today)
      if (!parsed.input) return invalidCobv(parsed.violacoes)
      const outcome = bank.putCob(params.txid, parsed.input, JSON.stringify(parsed.input))
      if (outcome === "conflict") {
        return invalidCobv([{ propriedade: "cobv.txid", razao: "txid is already used by a different cob." }])
      }
      return json(outcome.created ? 201 : 200, cobJson(outcome.cob, bank.state))
    }
  },
  {
    name: "cobv.get",
    method: "GET",
    path: "/v2/cobv/:txid",
    scope: "cobv.read",
    handle: ({ params, bank }) => {
      const cob = bank.state.cobs.get(params.txid)
      return cob?.vencimento
        ? json(200, cobJson(cob, bank.state))
        : notFound("CobVNaoEncontrada", "Cobv not found.", `No cobv with txid ${params.txid}.`)
    }
  },
  {
    name: "cobv.patch",
    method: "PATCH",
    path: "/v2/cobv/:txid",
    scope: "cobv.write",
    handle: ({ params, body, bank }) => {
      const cob = bank.state.cobs.get(params.txid)
      if (!cob?.vencimento)
        return notFound("CobVNaoEncontrada", "Cobv not found.", `No cobv with txid ${params.txid}.`)
      const revision = asObject(body)
      if (revision?.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR" || Object.keys(revision).length > 1) {
        return invalidCobv([
          {
            propriedade: "cobv.status",
            razao: "The simulator revises only status, to REMOVIDA_PELO_USUARIO_RECEBEDOR."
          }
        ])
      }
      if (cob.status !== "ATIVA" && cob.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR") {
        return invalidCobv([{ propriedade: "cobv.status", razao: `The cobv is ${cob.status}, not ATIVA.` }])
      }
      cob.status = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
      return json(200, cobJson(cob, bank.state))
    }
  },
  {
    name: "pix.list",
    method: "GET",
    path: "/v2/pix",
    scope: "pix.read",
    handle: ({ query, bank }) => {
      const violacoes: Array<Violacao> = []
      const dateParam = (name: "inicio" | "fim") => {
        const raw = query.get(name)
        const at = raw !== null && dateTimePattern.test(raw) ? new Date(raw) : undefined
        if (at === undefined || Number.isNaN(at.getTime())) {
          violacoes.push({ propriedade: name, razao: `${name} is required, an RFC 3339 date-time.` })
          return undefined
        }
        return at
      }
      const inicio = dateParam("inicio")
      const fim = dateParam("fim")
      if (inicio && fim && fim < inicio)
        violacoes.push({ propriedade: "fim", razao: "fim is before inicio." })
      const pagina = integerParam(query, "paginacao.paginaAtual", 0)
      const itens = integerParam(query, "paginacao.itensPorPagina", 100)
      if (!(pagina >= 0))
        violacoes.push({ propriedade: "paginacao.paginaAtual", razao: "must be 0 or more." })
      if (!(itens >= 1 && itens <= 1000)) {
        violacoes.push({ propriedade: "paginacao.itensPorPagina", razao: "must be 1 to 1000." })
      }
      if (query.has("cpf") && query.has("cnpj")) {
        violacoes.push({ propriedade: "cpf", razao: "cpf and cnpj cannot be used together." })
      }
      const txIdPresente = booleanParam(query, "txIdPresente")
      const devolucaoPresente = booleanParam(query, "devolucaoPresente")
      if (txIdPresente === "invalid") violacoes.push({ propriedade: "txIdPresente", razao: "true or false." })
      if (devolucaoPresente === "invalid") {
        violacoes.push({ propriedade: "devolucaoPresente", razao: "true or false." })
      }
      if (violacoes.length > 0 || !inicio || !fim) return invalidQuery(violacoes)
      const txid = query.get("txid")
      const matching = [...bank.state.pix.values()]
        .filter((pix) => pix.horario >= inicio && pix.horario <= fim)
        .filter((pix) => txid === null || pix.txid === txid)
        .filter((pix) => txIdPresente === undefined || (pix.txid !== undefined) === txIdPresente)
        .filter((pix) => devolucaoPresente === undefined || pix.devolucoes.length > 0 === devolucaoPresente)
        .sort((a, b) => a.horario.getTime() - b.horario.getTime())
      return json(200, {
        parametros: {
          inicio: inicio.toISOString(),
          fim: fim.toISOString(),
          paginacao: {
            paginaAtual: pagina,
            itensPorPagina: itens,
            quantidadeDePaginas: Math.ceil(matching.length / itens),
            quantidadeTotalDeItens: matching.length
          }
        },
        pix: matching.slice(pagina * itens, (pagina + 1) * itens).map(pixJson)
      })
    }
  },
  {
    name: "pix.get",
    method: "GET",
    path: "/v2/pix/:e2eid",
    scope: "pix.read",
    handle: ({ params, bank }) => {
      const pix = bank.state.pix.get(params.e2eid)
      return pix
        ? json(200, pixJson(pix))
        : notFound("PixNaoEncontrado", "Pix not found.", `No Pix with endToEndId ${params.e2eid}.`)
    }
  },
  {
    name: "devolucao.put",
    method: "PUT",
    path: "/v2/pix/:e2eid/devolucao/:id",
    scope: "pix.write",
    handle: ({ params, body, bank }) => {
      const pix = bank.state.pix.get(params.e2eid)
      if (!pix)
        return notFound("PixNaoEncontrado", "Pix not found.", `No Pix with endToEndId ${params.e2eid}.`)
      const violacoes: Array<Violacao> = []
      if (!devolucaoIdPattern.test(params.id)) {
        violacoes.push({ propriedade: "id", razao: "id must be 1 to 35 letters or digits." })
      }
      const request = asObject(body)
      const valor = typeof request?.valor === "string" ? request.valor : undefined
      if (valor === undefined || !valorPattern.test(valor) || toCents(valor) === 0) {
        violacoes.push({
          propriedade: "devolucao.valor",
          razao: "valor must be a string like 12.34, above 0.00."
        })
      }
      const natureza = request?.natureza ?? "ORIGINAL"
      if (natureza !== "ORIGINAL" && natureza !== "RETIRADA") {
        violacoes.push({ propriedade: "devolucao.natureza", razao: "natureza must be ORIGINAL or RETIRADA." })
      }
      const descricao = request?.descricao
      if (descricao !== undefined && boundedString(descricao, 140, 0) === undefined) {
        violacoes.push({ propriedade: "devolucao.descricao", razao: "descricao: at most 140 characters." })
      }
      const invalid = (list: ReadonlyArray<Violacao>) =>
        problem(
          400,
          "PixDevolucaoInvalida",
          "Invalid refund.",
          "The refund does not follow the schema.",
          list
        )
      if (violacoes.length > 0 || valor === undefined) return invalid(violacoes)
      const input = {
        id: params.id,
        valor,
        natureza: natureza as string,
        ...(descricao === undefined ? {} : { descricao: descricao as string })
      }
      const outcome = bank.refund(pix, input, JSON.stringify(input))
      if (outcome === "conflict") {
        return invalid([
          { propriedade: "id", razao: "id is already used by a different refund of this Pix." }
        ])
      }
      if (outcome === "exceeds") {
        return invalid([{ propriedade: "devolucao.valor", razao: "Refunds would exceed the Pix's amount." }])
      }
      return json(outcome.created ? 201 : 200, devolucaoJson(outcome.devolucao))
    }
  },
  {
    name: "devolucao.get",
    method: "GET",
    path: "/v2/pix/:e2eid/devolucao/:id",
    scope: "pix.read",
    handle: ({ params, bank }) => {
      const devolucao = bank.state.pix.get(params.e2eid)?.devolucoes.find((item) => item.id === params.id)
      return devolucao
        ? json(200, devolucaoJson(devolucao))
        : notFound(
            "PixDevolucaoNaoEncontrada",
            "Refund not found.",
            `No refund ${params.id} of ${params.e2eid}.`
          )
    }
  },
  {
    name: "webhook.put",
    method: "PUT",
    path: "/v2/webhook/:chave",
    scope: "webhook.write",
    handle: ({ params, body, bank }) => {
      const chave = params.chave
      const violacoes: Array<Violacao> = []
      if (!bank.ownsKey(chave))
        violacoes.push({ propriedade: "chave", razao: "chave is not a key of this account." })
      const url = asObject(body)?.webhookUrl
      let valid = false
      try {
        valid = typeof url === "string" && ["http:", "https:"].includes(new URL(url).protocol)
      } catch {
        valid = false
      }
      if (!valid)
        violacoes.push({ propriedade: "webhook.webhookUrl", razao: "webhookUrl must be an http(s) URL." })
      if (violacoes.length > 0) {
        return problem(
          400,
          "WebhookOperacaoInvalida",
          "Invalid webhook.",
          "The webhook is not valid.",
          violacoes
        )
      }
      const webhook = { chave, webhookUrl: url as string, criacao: bank.settings.now() }
      bank.state.webhooks.set(chave, webhook)
      return json(200, { ...webhook, criacao: webhook.criacao.toISOString() })
    }
  },
  {
    name: "webhook.get",
    method: "GET",
    path: "/v2/webhook/:chave",
    scope: "webhook.read",
    handle: ({ params, bank }) => {
      const webhook = bank.state.webhooks.get(params.chave)
      return webhook
        ? json(200, { ...webhook, criacao: webhook.criacao.toISOString() })
        : notFound("WebhookNaoEncontrado", "Webhook not found.", `No webhook for ${params.chave}.`)
    }
  },
  {
    name: "webhook.delete",
    method: "DELETE",
    path: "/v2/webhook/:chave",
    scope: "webhook.write",
    handle: ({ params, bank }) =>
      bank.state.webhooks.delete(params.chave)
        ? empty(204)
        : notFound("WebhookNaoEncontrado", "Webhook not found.", `No webhook for ${params.chave}.`)
  }
]
