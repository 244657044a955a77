/** The RFC 7807 problems of Pix Automático's routes. */
import { problem, type Violacao } from "../Reply.js"

/** A 400 of type `tipo` with its violations. */
export const invalid = (tipo: string, detail: string, violacoes: ReadonlyArray<Violacao> = []) =>
  problem(400, tipo, "Operação inválida.", detail, violacoes)
/** A 404 of type `tipo`. */
export const notFound = (tipo: string, detail: string) => problem(404, tipo, "Não encontrado.", detail)
