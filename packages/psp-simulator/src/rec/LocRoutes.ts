/** `/locrec` (locations of recurrences) and the recurring webhooks (`/webhookrec`, `/webhookcobr`). */
import { empty, json } from "../Reply.js"
import { asObject, type Route } from "../Route.js"
import type { Automatico } from "./Automatico.js"
import { locRecJson } from "./Json.js"
import { collector, page, parseListQuery } from "./Parse.js"
import { invalid, notFound } from "./Problems.js"

export const webhookRoutes = (a: Automatico, kind: "rec" | "cobr"): ReadonlyArray<Route> => {
  const name = kind === "rec" ? "webhookrec" : "webhookcobr"
  const tipo = kind === "rec" ? "WebhookRecOperacaoInvalida" : "WebhookCobROperacaoInvalida"
  return [
    {
      name: `${name}.put`,
      method: "PUT",
      path: `/v2/${name}`,
      scope: `${name}.write`,
      handle: ({ body }) => {
        const url = asObject(body)?.webhookUrl
        let valid = false
        try {
          valid = typeof url === "string" && ["http:", "https:"].includes(new URL(url).protocol)
        } catch {
          valid = false
        }
        if (!valid)
          return invalid(tipo, "The webhook is not valid.", [
            { propriedade: "webhookUrl", razao: "webhookUrl must be an http(s) URL." }
          ])
        a.state.webhooks.set(kind, { webhookUrl: url as string, criacao: a.settings.now() })
        return empty(200)
      }
    },
    {
      name: `${name}.get`,
      method: "GET",
      path: `/v2/${name}`,
      scope: `${name}.read`,
      handle: () => {
        const webhook = a.state.webhooks.get(kind)
        return webhook
          ? json(200, { webhookUrl: webhook.webhookUrl, criacao: webhook.criacao.toISOString() })
          : notFound("WebhookNaoEncontrado", `No ${name} registered.`)
      }
    },
    {
      name: `${name}.delete`,
      method: "DELETE",
      path: `/v2/${name}`,
      scope: `${name}.write`,
      handle: () =>
        a.state.webhooks.delete(kind)
          ? empty(204)
          : notFound("WebhookNaoEncontrado", `No ${name} registered.`)
    }
  ]
}

export const locRoutes = (a: Automatico): ReadonlyArray<Route> => [
  {
    name: "locrec.post",
    method: "POST",
    path: "/v2/locrec",
    scope: "payloadlocationrec.write",
    handle: () => {
      const loc = a.newLoc()
      return { ...json(201, locRecJson(loc)), headers: { location: loc.location } }
    }
  },
  {
    name: "locrec.list",
    method: "GET",
    path: "/v2/locrec",
    scope: "payloadlocationrec.read",
    handle: ({ query }) => {
      const { violacoes, add } = collector()
      const q = parseListQuery(query, add)
      const presente = query.get("idRecPresente")
      if (presente !== null && presente !== "true" && presente !== "false")
        add("idRecPresente", "true or false.")
      if (violacoes.length > 0 || !q.inicio || !q.fim)
        return invalid(
          "PayloadLocationRecConsultaInvalida",
          "The query does not follow the schema.",
          violacoes
        )
      const { inicio, fim } = q
      const locs = [...a.state.locs.values()]
        .filter((l) => l.criacao >= inicio && l.criacao <= fim)
        .filter((l) => presente === null || (l.idRec !== undefined) === (presente === "true"))
      const { parametros, items } = page(
        locs,
        q,
        presente === null ? {} : { idRecPresente: presente === "true" }
      )
      return json(200, { parametros, loc: items.map(locRecJson) })
    }
  },
  {
    name: "locrec.get",
    method: "GET",
    path: "/v2/locrec/:id",
    scope: "payloadlocationrec.read",
    handle: ({ params }) => {
      const loc = a.state.locs.get(Number(params.id))
      return loc
        ? json(200, locRecJson(loc))
        : notFound("PayloadLocationRecNaoEncontrado", `No location ${params.id}.`)
    }
  },
  {
    name: "locrec.unlink",
    method: "DELETE",
    path: "/v2/locrec/:id/idRec",
    scope: "payloadlocationrec.write",
    handle: ({ params }) => {
      const loc = a.state.locs.get(Number(params.id))
      if (!loc) return notFound("PayloadLocationRecNaoEncontrado", `No location ${params.id}.`)
      const rec = loc.idRec === undefined ? undefined : a.state.recs.get(loc.idRec)
      if (rec) delete rec.loc
      delete loc.idRec
      return json(200, locRecJson(loc))
    }
  }
]
