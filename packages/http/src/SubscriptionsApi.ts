/**
 * Subscriptions (Pix Automático recurrences) in the public API, behind the merchant's API key:
 * `POST /api/v1/subscriptions` (with an optional Idempotency-Key, like charges) answers what the
 * payer needs (journey 1's push request, journey 2's QR, journeys 3 and 4's composite QR);
 * `GET /api/v1/subscriptions` (newest first, a cursor), `GET /api/v1/subscriptions/{id}`, its
 * cycles, `POST .../cancel` and `POST .../cycles/{txid}/retry`. Fields keep the standard's names
 * (docs/recurring.md); amounts are written as the standard writes them (`"99.90"`).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { type Errors as CoreErrors, Recurrence as R, Requests } from "@pixgate/core"
import { Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"
import type { ApiKey, IdempotencyHeaders, IdempotentOperation } from "./PixgateApi.js"

const describe = (identifier: string, summary: string, description?: string) =>
  OpenApi.annotations({ identifier, summary, description })

/** A refused field of a subscription: `invalid_recurrence` with its message. */
const invalid = (path: string, message: string) => Requests.problem("invalid_recurrence", message, path)

/** A required field: its absence is `invalid_recurrence` too. */
const req = <S extends Schema.Schema.Any>(path: string, schema: S) =>
  Requests.required(schema, invalid(path, `${path} is required`))

const text = (path: string, description: string) =>
  Schema.String.annotations({ description, ...invalid(path, `${path} must be a string`) })

/** An amount as the standard writes it: `"99.90"`. */
const Valor = (path: string, description: string) =>
  Schema.String.pipe(Schema.pattern(/^\d{1,10}\.\d{2}$/)).annotations({
    description: `${description} (reais with two decimals, e.g. \`"99.90"\`)`,
    examples: ["99.90"],
    ...invalid(path, `${path} must be an amount like "99.90"`)
  })

const Day = (path: string, description: string) =>
  Schema.String.annotations({
    description,
    jsonSchema: { type: "string", format: "date" },
    ...invalid(path, `${path} must be a YYYY-MM-DD date`)
  })

const oneOf = <L extends ReadonlyArray<string>>(path: string, literals: L, description: string) =>
  Schema.Literal(...(literals as unknown as readonly [L[number], ...Array<L[number]>])).annotations({
    description,
    ...invalid(path, `${path} must be one of: ${literals.join(", ")}`)
  })

/** The body of `POST /api/v1/subscriptions`. */
export const CreateSubscription = Schema.Struct({
  jornada: req("jornada", oneOf("jornada", R.jornadas, "How the payer authorises (docs/recurring.md)")),
  vinculo: req(
    "vinculo",
    Schema.Struct({
      contrato: req(
        "vinculo.contrato",
        text("vinculo.contrato", "The contract, e.g. the member's number (1-35 characters)")
      ),
      devedor: req(
        "vinculo.devedor",
        Schema.Struct({
          cpf: Schema.optional(text("vinculo.devedor.cpf", "The debtor's CPF (11 digits); or cnpj")),
          cnpj: Schema.optional(text("vinculo.devedor.cnpj", "The debtor's CNPJ (14 characters); or cpf")),
          nome: req("vinculo.devedor.nome", text("vinculo.devedor.nome", "The debtor's name"))
        }).annotations(invalid("vinculo.devedor", "vinculo.devedor must be { cpf | cnpj, nome }"))
      ),
      objeto: Schema.optional(text("vinculo.objeto", "What is paid for (at most 35 characters)"))
    }).annotations(invalid("vinculo", "vinculo must be { contrato, devedor, objeto? }"))
  ),
  calendario: req(
    "calendario",
    Schema.Struct({
      dataInicial: req("calendario.dataInicial", Day("calendario.dataInicial", "The first due date")),
      dataFinal: Schema.optional(Day("calendario.dataFinal", "The last day a cycle may be due on")),
      periodicidade: req(
        "calendario.periodicidade",
        oneOf("calendario.periodicidade", R.periodicidades, "How often a cycle is due")
      )
    }).annotations(invalid("calendario", "calendario must be { dataInicial, dataFinal?, periodicidade }"))
  ),
  valor: req(
    "valor",
    Schema.Struct({
      valorRec: Schema.optional(Valor("valor.valorRec", "A fixed amount per cycle")),
      valorMinimoRecebedor: Schema.optional(
        Valor("valor.valorMinimoRecebedor", "The least a cycle of a variable amount charges")
      )
    }).annotations(invalid("valor", "valor must hold valorRec or valorMinimoRecebedor"))
  ),
  valorCiclo: Schema.optional(
    Valor("valorCiclo", "Each cycle's amount when valorRec is not given (at least valorMinimoRecebedor)")
  ),
  politicaRetentativa: req(
    "politicaRetentativa",
    oneOf("politicaRetentativa", R.politicas, "Whether failed debits may be retried")
  ),
  pagador: Schema.optional(
    Schema.Struct({
      ispbParticipante: req(
        "pagador.ispbParticipante",
        text("pagador.ispbParticipante", "The payer's bank (ISPB, 8 characters)")
      ),
      conta: req("pagador.conta", text("pagador.conta", "The payer's account")),
      agencia: Schema.optional(text("pagador.agencia", "The payer's branch"))
    }).annotations({
      description: "Journey 1: the payer's account, where the push request goes",
      ...invalid("pagador", "pagador must be { ispbParticipante, conta, agencia? }")
    })
  ),
  dataExpiracaoSolicitacao: Schema.optional(
    text("dataExpiracaoSolicitacao", "Journey 1: when the push request expires (RFC 3339; default 7 days)")
  ),
  cobranca: Schema.optional(
    Schema.Struct({
      valor: req("cobranca.valor", Valor("cobranca.valor", "The first payment")),
      dueDate: Schema.optional(Day("cobranca.dueDate", "Journey 4: the first payment's due date"))
    }).annotations({
      description: "Journeys 3 and 4: the first payment, in the same (composite) QR",
      ...invalid("cobranca", "cobranca must be { valor, dueDate? }")
    })
  )
}).annotations({
  identifier: "CreateSubscription",
  description: "A subscription to create (an API Pix recurrence): the standard's field names",
  examples: [
    {
      jornada: "JORNADA_2",
      vinculo: {
        contrato: "GYM-0042",
        devedor: { cpf: "12345678909", nome: "Ana Souza" },
        objeto: "Plano mensal"
      },
      calendario: { dataInicial: "2026-12-10", periodicidade: "MENSAL" },
      valor: { valorRec: "99.90" },
      politicaRetentativa: "PERMITE_3R_7D"
    }
  ],
  ...invalid("", "The body must be a subscription object")
})

/** The query of `GET /api/v1/subscriptions`, as it arrives (read by the handler). */
export const ListQuery = Schema.Struct({
  status: Schema.optional(
    Schema.String.annotations({
      description: `Filter by status: ${R.recStatuses.join(", ")}`,
      jsonSchema: { type: "string", enum: [...R.recStatuses] }
    })
  ),
  limit: Schema.optional(
    Schema.String.annotations({
      description: "Items per page (default 20, at most 100: larger values are clamped)",
      jsonSchema: { type: "integer", minimum: 1 }
    })
  ),
  before: Schema.optional(
    Schema.String.annotations({
      description: "The cursor: `nextBefore` of the previous page (the subscriptions created before that one)"
    })
  )
})

const Atualizacao = Schema.Struct({ status: Schema.String, data: Schema.String })
const Rejeicao = Schema.Struct({ codigo: Schema.String, descricao: Schema.String })
const Encerramento = Schema.Struct({
  rejeicao: Schema.optional(Rejeicao),
  cancelamento: Schema.optional(
    Schema.Struct({ solicitante: Schema.String, codigo: Schema.String, descricao: Schema.String })
  )
}).annotations({ description: "Why it ended: the payer's rejection, or a cancellation and who asked" })

/** A subscription as the API answers it (`SubscriptionViews.SubscriptionJson`). */
export const Subscription = Schema.Struct({
  id: Schema.String.annotations({ description: "Pixgate's id (`sub_...`)" }),
  idRec: Schema.NullOr(Schema.String).annotations({
    description: "The recurrence's id (29 characters); null while a live creation's outcome is unknown"
  }),
  status: Schema.Literal(...R.recStatuses),
  jornada: Schema.Literal(...R.jornadas),
  vinculo: Schema.Struct({
    contrato: Schema.String,
    devedor: Schema.Struct({
      cpf: Schema.optional(Schema.String),
      cnpj: Schema.optional(Schema.String),
      nome: Schema.String
    }),
    objeto: Schema.optional(Schema.String)
  }),
  calendario: Schema.Struct({
    dataInicial: Schema.String,
    dataFinal: Schema.optional(Schema.String),
    periodicidade: Schema.Literal(...R.periodicidades)
  }),
  valor: Schema.Struct({
    valorRec: Schema.optional(Schema.String),
    valorMinimoRecebedor: Schema.optional(Schema.String)
  }),
  valorCiclo: Schema.String.annotations({ description: "The amount each cycle charges" }),
  politicaRetentativa: Schema.Literal(...R.politicas),
  atualizacao: Schema.Array(Atualizacao).annotations({ description: "Every status, with when" }),
  encerramento: Schema.optional(Encerramento),
  ativacao: Schema.Struct({
    tipoJornada: Schema.Literal(...R.jornadas, "AGUARDANDO_DEFINICAO"),
    dadosJornada: Schema.optional(Schema.Struct({ txid: Schema.String }))
  }),
  solicitacao: Schema.optional(
    Schema.Struct({
      idSolicRec: Schema.String,
      status: Schema.Literal(...R.solicRecStatuses),
      calendario: Schema.Struct({ dataExpiracaoSolicitacao: Schema.String }),
      destinatario: Schema.Struct({
        ispbParticipante: Schema.String,
        conta: Schema.String,
        agencia: Schema.optional(Schema.String),
        cpf: Schema.optional(Schema.String),
        cnpj: Schema.optional(Schema.String)
      }),
      atualizacao: Schema.Array(Atualizacao)
    }).annotations({ description: "Journey 1: the push request sent to the payer's bank" })
  ),
  loc: Schema.optional(Schema.Struct({ location: Schema.String })),
  dadosQR: Schema.optional(
    Schema.Struct({
      jornada: Schema.Literal("JORNADA_2", "JORNADA_3", "JORNADA_4"),
      pixCopiaECola: Schema.String
    }).annotations({ description: "Journeys 2 to 4: the QR (copy-and-paste BR Code) to show the payer" })
  ),
  cobranca: Schema.optional(
    Schema.Struct({ transactionId: Schema.String, txid: Schema.String }).annotations({
      description: "Journeys 3 and 4: the first payment's charge"
    })
  ),
  valorMaximoPagador: Schema.optional(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
}).annotations({ identifier: "Subscription", description: "A subscription (an API Pix recurrence)" })

/** A page of subscriptions. */
export const SubscriptionPage = Schema.Struct({
  data: Schema.Array(Subscription),
  limit: Schema.Int,
  nextBefore: Schema.NullOr(Schema.String).annotations({
    description: "The `before` of the next page; null on the last page"
  })
}).annotations({ identifier: "SubscriptionPage", description: "Subscriptions, newest first" })

const Tentativa = Schema.Struct({
  dataLiquidacao: Schema.String,
  tipo: Schema.Literal("AGND", "NTAG", "RIFL"),
  endToEndId: Schema.String,
  status: Schema.Literal(...R.tentativaStatuses),
  atualizacao: Schema.Array(Atualizacao),
  rejeicao: Schema.optional(Rejeicao)
})

/** A cycle as the API answers it (`SubscriptionViews.CycleJson`). */
export const Cycle = Schema.Struct({
  txid: Schema.String,
  idRec: Schema.String,
  subscriptionId: Schema.String,
  ciclo: Schema.Int.annotations({ description: "1 for the first cycle" }),
  status: Schema.Literal(...R.cobrStatuses),
  calendario: Schema.Struct({ criacao: Schema.String, dataDeVencimento: Schema.String }),
  dataLiquidacao: Schema.String.annotations({
    description: "The day the debit settles (the due date moved to a business day)"
  }),
  valor: Schema.Struct({ original: Schema.String }),
  ajusteDiaUtil: Schema.Boolean,
  politicaRetentativa: Schema.Literal(...R.politicas),
  atualizacao: Schema.Array(Atualizacao),
  encerramento: Schema.optional(Encerramento),
  tentativas: Schema.Array(Tentativa),
  transactionId: Schema.String.annotations({ description: "The charge transaction that books the cycle" })
}).annotations({ identifier: "SubscriptionCycle", description: "One cycle's charge (an API Pix cobr)" })

/** The cycles of a subscription. */
export const CycleList = Schema.Struct({ data: Schema.Array(Cycle) }).annotations({
  identifier: "SubscriptionCycleList",
  description: "A subscription's cycles, first cycle first"
})

/** The body of a retry. */
export const Retry = Schema.Struct({
  data: Requests.required(
    Schema.String.annotations({
      description: "The day of the new attempt (YYYY-MM-DD)",
      jsonSchema: { type: "string", format: "date" },
      ...Requests.problem("invalid_retry_date", "data must be a YYYY-MM-DD date", "data")
    }),
    Requests.problem("invalid_retry_date", "data is required", "data")
  )
}).annotations({
  identifier: "SubscriptionRetry",
  ...Requests.problem("invalid_retry_date", "data must be a YYYY-MM-DD date", "data")
})

const IdPath = Schema.Struct({ id: Schema.String })
const CyclePath = Schema.Struct({ id: Schema.String, txid: Schema.String })

/** What the subscription endpoints answer besides the group's errors. */
const Errors = Schema.Union(ApiErrors.ValidationError, ApiErrors.SubscriptionRefused)

/** The core errors the group's declarations carry (named here for the declaration files). */
export type Refusal = CoreErrors.Refused

/** What the group takes from `PixgateApi` (passed in: `PixgateApi` imports this module). */
export interface Shared {
  readonly ApiKey: typeof ApiKey
  readonly IdempotencyHeaders: typeof IdempotencyHeaders
  readonly IdempotentOperation: typeof IdempotentOperation
}

/** `/api/v1/subscriptions`, behind the API key. */
export const group = ({ ApiKey, IdempotencyHeaders, IdempotentOperation }: Shared) =>
  HttpApiGroup.make("subscriptions")
    .add(
      HttpApiEndpoint.post("create", "/api/v1/subscriptions")
        .annotate(IdempotentOperation, "subscriptions.create")
        .setPayload(CreateSubscription)
        .setHeaders(IdempotencyHeaders)
        .addSuccess(Subscription, { status: 201 })
        .addError(
          Schema.Union(
            ApiErrors.InvalidJson,
            ApiErrors.Conflict,
            ApiErrors.PayloadTooLarge,
            ApiErrors.IdempotencyMismatch,
            ApiErrors.GatewayUnavailable
          )
        )
        .annotateContext(
          describe(
            "createSubscription",
            "Create a subscription (Pix Automático)",
            "Answers what the payer needs: `solicitacao` (journey 1, the push request at their bank), " +
              "`dadosQR.pixCopiaECola` (journey 2, the recurrence's QR; journeys 3 and 4, the composite QR with " +
              "`cobranca`). `status` is `CRIADA` until the payer answers (event `subscription.updated`). Invalid " +
              "fields are 422 `invalid_recurrence`; a live gateway without Pix Automático is 409 `recurring_unsupported`."
          )
        )
    )
    .add(
      HttpApiEndpoint.get("list", "/api/v1/subscriptions")
        .setUrlParams(ListQuery)
        .addSuccess(SubscriptionPage)
        .annotateContext(
          describe(
            "listSubscriptions",
            "List subscriptions",
            "The merchant's subscriptions of the key's mode, newest first; `before` is the previous page's " +
              "`nextBefore`. Invalid values are 422 `invalid_query`."
          )
        )
    )
    .add(
      HttpApiEndpoint.get("get", "/api/v1/subscriptions/:id")
        .setPath(IdPath)
        .addSuccess(Subscription)
        .annotateContext(describe("getSubscription", "Read a subscription"))
    )
    .add(
      HttpApiEndpoint.get("cycles", "/api/v1/subscriptions/:id/cycles")
        .setPath(IdPath)
        .addSuccess(CycleList)
        .annotateContext(
          describe(
            "listSubscriptionCycles",
            "A subscription's cycles",
            "Each cycle's charge (`txid`), its due and settlement dates, status, attempts (`tentativas`) and the " +
              "charge transaction that books its money."
          )
        )
    )
    .add(
      HttpApiEndpoint.post("cancel", "/api/v1/subscriptions/:id/cancel")
        .setPath(IdPath)
        .addSuccess(Subscription)
        .addError(ApiErrors.Conflict)
        .annotateContext(
          describe(
            "cancelSubscription",
            "Cancel a subscription",
            "The merchant ends it (`encerramento.cancelamento.solicitante` `USUARIO_RECEBEDOR`); its cycles not yet " +
              "on their settlement day are cancelled. 409 `subscription_not_cancellable` once it has ended."
          )
        )
    )
    .add(
      HttpApiEndpoint.post("retry", "/api/v1/subscriptions/:id/cycles/:txid/retry")
        .setPath(CyclePath)
        .setPayload(Retry)
        .addSuccess(Cycle)
        .addError(
          Schema.Union(ApiErrors.InvalidJson, ApiErrors.PayloadTooLarge, ApiErrors.GatewayUnavailable)
        )
        .annotateContext(
          describe(
            "retrySubscriptionCycle",
            "Order a retry of a failed cycle",
            "Under `PERMITE_3R_7D` only: a cycle `ATIVA` after a failed attempt, none pending, at most 3 retries, on a " +
              "future business day after every earlier attempt and within 7 days after the settlement date. " +
              "Otherwise 409 `retry_not_allowed` with the reason."
          )
        )
    )
    .addError(Errors)
    .middleware(ApiKey)
    .annotateContext(
      OpenApi.annotations({
        title: "Subscriptions",
        description:
          "Pix Automático: the payer authorises once, each cycle is debited on its date (docs/recurring.md)"
      })
    )
