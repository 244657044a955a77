/** Checks of Pix Automático request bodies, with the OpenAPI's property names in `violacoes`. */
import { toCents, valorPattern } from "../Model.js"
import type { Violacao } from "../Reply.js"
import { asObject, boundedString } from "../Route.js"
import { isDate } from "./Calendar.js"
import { type Periodicidade, type Pessoa, type PoliticaRetentativa, periodicidades } from "./Model.js"

export const txidPattern = /^[a-zA-Z0-9]{26,35}$/
export const idRecPattern = /^[a-zA-Z0-9]{29}$/
const cpfPattern = /^\d{11}$/
const cnpjPattern = /^[0-9A-Z]{14}$/

type Add = (propriedade: string, razao: string) => void

export const collector = () => {
  const violacoes: Array<Violacao> = []
  const add: Add = (propriedade, razao) => violacoes.push({ propriedade, razao })
  return { violacoes, add }
}

/** A CPF or CNPJ (exactly one), as `{ cpf }` or `{ cnpj }`. */
export const documento = (value: Record<string, unknown> | undefined, at: string, add: Add) => {
  const cpf = value?.cpf
  const cnpj = value?.cnpj
  if ((cpf === undefined) === (cnpj === undefined)) {
    add(at, `${at} needs exactly one of cpf and cnpj.`)
    return undefined
  }
  if (cpf !== undefined) {
    if (typeof cpf === "string" && cpfPattern.test(cpf)) return { cpf }
    add(`${at}.cpf`, "cpf must be 11 digits.")
    return undefined
  }
  if (typeof cnpj === "string" && cnpjPattern.test(cnpj)) return { cnpj }
  add(`${at}.cnpj`, "cnpj must be 14 digits or capital letters.")
  return undefined
}

const valorOf = (value: unknown, at: string, add: Add) => {
  if (value === undefined) return undefined
  if (typeof value !== "string" || !valorPattern.test(value) || toCents(value) === 0) {
    add(at, `${at} must be a string like 12.34, above 0.00.`)
    return undefined
  }
  return value
}

/** The body of `POST /rec`. */
export const parseRec = (body: unknown, today: string, add: Add) => {
  const rec = asObject(body)
  if (!rec) {
    add("rec", "The body must be a JSON object.")
    return undefined
  }
  const vinculo = asObject(rec.vinculo)
  const contrato = boundedString(vinculo?.contrato, 35)
  const objeto = vinculo?.objeto
  if (!vinculo) add("rec.vinculo", "vinculo is required: contrato, devedor and an optional objeto.")
  else {
    if (contrato === undefined) add("rec.vinculo.contrato", "contrato is required, 1 to 35 characters.")
    if (objeto !== undefined && boundedString(objeto, 35) === undefined)
      add("rec.vinculo.objeto", "objeto must be 1 to 35 characters.")
  }
  const devedorObject = asObject(vinculo?.devedor)
  const nome = boundedString(devedorObject?.nome, 140)
  if (vinculo && nome === undefined)
    add("rec.vinculo.devedor.nome", "devedor.nome is required, 1 to 140 characters.")
  const doc = vinculo ? documento(devedorObject, "rec.vinculo.devedor", add) : undefined
  const calendario = asObject(rec.calendario)
  const dataInicial = calendario?.dataInicial
  const dataFinal = calendario?.dataFinal
  const periodicidade = calendario?.periodicidade
  if (!calendario) add("rec.calendario", "calendario is required: dataInicial and periodicidade.")
  else {
    if (!isDate(dataInicial)) add("rec.calendario.dataInicial", "dataInicial must be a date YYYY-MM-DD.")
    else if (dataInicial < today)
      add("rec.calendario.dataInicial", "dataInicial is before the recurrence's creation.")
    if (dataFinal !== undefined && !isDate(dataFinal))
      add("rec.calendario.dataFinal", "dataFinal must be a date YYYY-MM-DD.")
    else if (isDate(dataFinal) && isDate(dataInicial) && dataFinal < dataInicial)
      add("rec.calendario.dataFinal", "dataFinal is before dataInicial.")
    if (!periodicidades.includes(periodicidade as Periodicidade))
      add("rec.calendario.periodicidade", `periodicidade must be one of ${periodicidades.join(", ")}.`)
  }
  const valor = rec.valor === undefined ? {} : asObject(rec.valor)
  if (!valor) add("rec.valor", "valor must be an object.")
  const valorRec = valorOf(valor?.valorRec, "rec.valor.valorRec", add)
  const valorMinimoRecebedor = valorOf(valor?.valorMinimoRecebedor, "rec.valor.valorMinimoRecebedor", add)
  if (valor?.valorRec !== undefined && valor?.valorMinimoRecebedor !== undefined)
    add("rec.valor", "valorRec and valorMinimoRecebedor cannot both be filled.")
  const politica = rec.politicaRetentativa
  if (politica !== "NAO_PERMITE" && politica !== "PERMITE_3R_7D")
    add("rec.politicaRetentativa", "politicaRetentativa must be NAO_PERMITE or PERMITE_3R_7D.")
  const recebedor = rec.recebedor === undefined ? {} : asObject(rec.recebedor)
  const convenio = recebedor?.convenio
  if (!recebedor || (convenio !== undefined && boundedString(convenio, 60) === undefined))
    add("rec.recebedor", "recebedor takes only convenio, at most 60 characters.")
  const loc = rec.loc
  if (loc !== undefined && !(typeof loc === "number" && Number.isInteger(loc)))
    add("rec.loc", "loc must be the id of a location (/locrec).")
  const txid = asObject(asObject(rec.ativacao)?.dadosJornada)?.txid
  if (txid !== undefined && !(typeof txid === "string" && txidPattern.test(txid)))
    add("rec.ativacao.dadosJornada.txid", "txid must be 26 to 35 letters or digits.")
  if (contrato === undefined || nome === undefined || doc === undefined || !isDate(dataInicial))
    return undefined
  return {
    vinculo: {
      ...(objeto === undefined ? {} : { objeto: objeto as string }),
      contrato,
      devedor: { nome, ...doc } as Pessoa
    },
    calendario: {
      dataInicial,
      ...(isDate(dataFinal) ? { dataFinal } : {}),
      periodicidade: periodicidade as Periodicidade
    },
    valor: {
      ...(valorRec === undefined ? {} : { valorRec }),
      ...(valorMinimoRecebedor === undefined ? {} : { valorMinimoRecebedor })
    },
    politicaRetentativa: politica as PoliticaRetentativa,
    convenio: convenio as string | undefined,
    loc: loc as number | undefined,
    txid: txid as string | undefined
  }
}

const tiposConta = ["CORRENTE", "POUPANCA", "PAGAMENTO"]

/** The body of `PUT /cobr/{txid}` and `POST /cobr`. */
export const parseCobR = (body: unknown, add: Add) => {
  const cobr = asObject(body)
  if (!cobr) {
    add("cobr", "The body must be a JSON object.")
    return undefined
  }
  const idRec = cobr.idRec
  if (!(typeof idRec === "string" && idRecPattern.test(idRec)))
    add("cobr.idRec", "idRec must be 29 letters or digits.")
  const infoAdicional = cobr.infoAdicional
  if (infoAdicional !== undefined && boundedString(infoAdicional, 140, 0) === undefined)
    add("cobr.infoAdicional", "infoAdicional: at most 140 characters.")
  const due = asObject(cobr.calendario)?.dataDeVencimento
  if (!isDate(due)) add("cobr.calendario", "calendario.dataDeVencimento must be a date YYYY-MM-DD.")
  const original = asObject(cobr.valor)?.original
  if (!(typeof original === "string" && valorPattern.test(original) && toCents(original) > 0))
    add("cobr.valor", "valor.original must be a string like 12.34, above 0.00.")
  const ajuste = cobr.ajusteDiaUtil ?? true
  if (typeof ajuste !== "boolean") add("cobr.ajusteDiaUtil", "ajusteDiaUtil must be true or false.")
  const recebedor = asObject(cobr.recebedor)
  const conta = boundedString(recebedor?.conta, 20)
  const agencia = recebedor?.agencia
  if (
    !recebedor ||
    conta === undefined ||
    !tiposConta.includes(recebedor.tipoConta as string) ||
    (agencia !== undefined && boundedString(agencia, 4) === undefined)
  )
    add(
      "cobr.recebedor",
      "recebedor needs conta (<= 20), tipoConta (CORRENTE, POUPANCA, PAGAMENTO), agencia (<= 4)."
    )
  const devedor = cobr.devedor === undefined ? {} : asObject(cobr.devedor)
  const strings = devedor && Object.values(devedor).every((v) => typeof v === "string" && v.length <= 200)
  if (!devedor || !strings || (devedor.uf !== undefined && (devedor.uf as string).length > 2))
    add("cobr.devedor", "devedor takes email, logradouro, cidade, uf (2) and cep as strings.")
  if (typeof idRec !== "string" || !isDate(due) || typeof original !== "string" || !recebedor || !devedor)
    return undefined
  return {
    idRec,
    ...(typeof infoAdicional === "string" ? { infoAdicional } : {}),
    dataDeVencimento: due,
    valor: { original },
    ajusteDiaUtil: ajuste === true,
    ...(cobr.devedor === undefined ? {} : { devedor: devedor as Record<string, string> }),
    recebedor: recebedor as Record<string, string>
  }
}

/** The common query of the list endpoints: inicio, fim, cpf/cnpj, pagination. */
export const parseListQuery = (query: URLSearchParams, add: Add) => {
  const at = (name: "inicio" | "fim") => {
    const raw = query.get(name)
    const date =
      raw !== null && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(raw)
        ? new Date(raw)
        : undefined
    if (!date || Number.isNaN(date.getTime())) add(name, `${name} is required, an RFC 3339 date-time.`)
    return date
  }
  const inicio = at("inicio")
  const fim = at("fim")
  if (inicio && fim && fim < inicio) add("fim", "fim is before inicio.")
  if (query.has("cpf") && query.has("cnpj")) add("cpf", "cpf and cnpj cannot be used together.")
  const int = (name: string, fallback: number) => {
    const raw = query.get(name)
    return raw === null ? fallback : /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN
  }
  const paginaAtual = int("paginacao.paginaAtual", 0)
  const itensPorPagina = int("paginacao.itensPorPagina", 100)
  if (!(paginaAtual >= 0)) add("paginacao.paginaAtual", "must be 0 or more.")
  if (!(itensPorPagina >= 1 && itensPorPagina <= 1000)) add("paginacao.itensPorPagina", "must be 1 to 1000.")
  return { inicio, fim, paginaAtual, itensPorPagina }
}

/** One page of `items` and the `parametros` that describe it. */
export const page = <T>(
  items: ReadonlyArray<T>,
  q: { inicio?: Date | undefined; fim?: Date | undefined; paginaAtual: number; itensPorPagina: number },
  extra: Record<string, unknown>
) => ({
  parametros: {
    inicio: q.inicio?.toISOString(),
    fim: q.fim?.toISOString(),
    ...extra,
    paginacao: {
      paginaAtual: q.paginaAtual,
      itensPorPagina: q.itensPorPagina,
      quantidadeDePaginas: Math.ceil(items.length / q.itensPorPagina),
      quantidadeTotalDeItens: items.length
    }
  },
  items: items.slice(q.paginaAtual * q.itensPorPagina, (q.paginaAtual + 1) * q.itensPorPagina)
})
