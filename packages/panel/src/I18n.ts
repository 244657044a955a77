/**
 * The panel's words in Brazilian Portuguese (default) and English, and how it writes money
 * (`R$ 1.234,56`) and times (America/Sao_Paulo, with the UTC instant on hover).
 */

import * as Security from "./SecurityWords.js"

/** Languages of the panel. */
export type Lang = "pt-BR" | "en"

/** Every language, the default first. */
export const langs: ReadonlyArray<Lang> = ["pt-BR", "en"]

const pt = {
  ...Security.pt,
  title: "Painel Pixgate",
  skip: "Pular para o conteúdo",
  overview: "Visão geral",
  transactions: "Transações",
  charges: "Cobranças",
  links: "Links",
  infractions: "Infrações",
  subscriptions: "Assinaturas",
  customers: "Clientes",
  payouts: "Saques",
  keys: "Chaves de API",
  webhooks: "Webhooks",
  password: "Senha",
  signIn: "Entrar",
  signOut: "Sair",
  email: "E-mail",
  passwordLabel: "Senha",
  wrongPassword: "E-mail ou senha incorretos.",
  tooMany: "Muitas tentativas. Tente de novo em alguns minutos.",
  mode: "Modo",
  test: "Teste",
  live: "Produção",
  language: "Idioma",
  available: "Disponível",
  pending: "A receber (cobranças pendentes)",
  held: "Retido por contestações",
  last30: "Últimos 30 dias",
  received: "Cobranças recebidas",
  sent: "Saques enviados",
  fees: "Tarifas",
  webhookFailing: "Seu endpoint de webhook está falhando:",
  webhookResent: "Reenvio agendado: as entregas que falharam no período saem aos poucos.",
  webhookEnabled: "Endpoint reativado: as entregas retidas estão sendo reenviadas.",
  seeLog: "Ver o registro de entregas",
  type: "Tipo",
  status: "Status",
  from: "De",
  to: "Até",
  filter: "Filtrar",
  exportCsv: "Exportar CSV",
  any: "Todos",
  amount: "Valor",
  fee: "Tarifa",
  net: "Líquido",
  created: "Criada em",
  updated: "Atualizada em",
  id: "ID",
  none: "Nada por aqui ainda.",
  previous: "Anterior",
  next: "Próxima",
  page: "Página",
  of: "de",
  details: "Detalhes",
  timeline: "Linha do tempo",
  events: "Eventos",
  deliveries: "Entregas de webhook",
  attempts: "Tentativas",
  redeliver: "Reenviar",
  payNow: "Pagar agora (sandbox)",
  receivedAmount: "Valor recebido",
  newCharge: "Nova cobrança",
  description: "Descrição",
  payerName: "Nome do pagador",
  payerDoc: "CPF ou CNPJ do pagador",
  optional: "opcional",
  create: "Criar",
  qrAlt: "QR Code PIX da cobrança",
  copyPaste: "PIX copia e cola",
  copy: "Copiar",
  copied: "Copiado",
  newPayout: "Novo saque",
  pixKey: "Chave PIX de destino",
  review: "Revisar",
  confirmPayout: "Confirmar saque",
  cancel: "Cancelar",
  debited: "Debitado do saldo",
  prefix: "Prefixo",
  lastUsed: "Último uso",
  never: "Nunca",
  revoked: "Revogada",
  active: "Ativa",
  createKey: "Criar chave",
  revoke: "Revogar",
  revokeConfirm: "Revogar esta chave? As requisições com ela passam a receber 401.",
  keyOnce: "Copie a chave agora: ela não será mostrada de novo.",
  url: "URL",
  secret: "Segredo",
  save: "Salvar",
  rotate: "Gerar novo segredo",
  signingKey: "Chave de assinatura",
  signingKeyOnce:
    "Copie a chave de assinatura agora: ela não será mostrada de novo. Seu receptor verifica o cabeçalho webhook-signature com ela.",
  rotateSigningKey: "Gerar nova chave de assinatura",
  overlap: "A chave anterior continua assinando por",
  overlapNone: "Nada (troca imediata)",
  overlapHour: "1 hora",
  overlapDay: "24 horas",
  overlapWeek: "7 dias",
  previousKeyUntil: "A chave anterior também assina as entregas até",
  signingExplain:
    "é assinado (Standard Webhooks, HMAC-SHA256) com a chave de assinatura deste endpoint, que o Pixgate gera e mostra uma única vez: verifique-o com qualquer biblioteca Standard Webhooks.",
  secretExplain:
    "leva o segredo como está, em toda entrega: serve para reconhecer a origem, mas quem vê uma entrega o conhece, então ele não assina nada.",
  signingKeyLost:
    'Perdeu a chave de assinatura, ou o endpoint é anterior a ela? Gere uma nova (com "Nada" ela vale na hora).',
  health: "Saúde do endpoint",
  consecutiveFailures: "Falhas seguidas",
  failingSince: "Falhando desde",
  pendingDeliveries: "Entregas pendentes",
  webhookFailingCount: "tentativas seguidas falharam.",
  sendTest: "Enviar evento de teste",
  sendTestHint: "Reenvia o evento mais recente deste modo para o endpoint.",
  deliveryLog: "Registro de entregas",
  statusCode: "Código",
  duration: "Duração",
  time: "Horário",
  event: "Evento",
  changePassword: "Trocar senha",
  currentPassword: "Senha atual",
  newPassword: "Nova senha",
  passwordChanged: "Senha alterada. As outras sessões foram encerradas.",
  setPassword: "Definir senha",
  inviteInvalid: "Este convite é inválido, já foi usado ou expirou.",
  passwordRule: "A senha precisa ter de 10 a 200 caracteres.",
  notFound: "Não encontrado",
  forbidden: "Requisição recusada (token CSRF ausente ou inválido).",
  saved: "Salvo.",
  testSent: "Evento de teste enviado.",
  error: "Erro",
  chargeCreated: "Cobrança criada.",
  payoutCreated: "Saque enviado.",
  paid: "Pagamento registrado.",
  redelivered: "Reenvio agendado.",
  keyRevoked: "Chave revogada.",
  liveOnlyNote: "Ações de sandbox existem apenas no modo de teste.",
  amountHint: "Em reais, por exemplo 12,34",
  chart: "Gráfico dos últimos 30 dias: cobranças recebidas, saques enviados e tarifas por dia",
  expires: "Expira em",
  signedInAs: "Conectado como",
  refundCreated: "Devolução solicitada.",
  // Layout, receipts (comprovantes), live status and white-label
  lookSupport: "Suporte",
  receipt: "Comprovante",
  receiptCharge: "Comprovante de recebimento PIX",
  receiptPayout: "Comprovante de transferência PIX",
  receiptPayer: "Pagador",
  receiptRecipient: "Recebedor",
  receiptWhen: "Data e hora (horário de Brasília)",
  receiptE2e: "ID fim a fim (E2E)",
  receiptTxid: "Identificador (txid)",
  receiptTransaction: "ID da transação",
  receiptIssuer: "Emitido por",
  receiptTestMark: "Modo de teste: nenhum dinheiro foi movimentado",
  receiptSavePdf: "Salvar como PDF",
  receiptPrintHint: 'Para salvar ou compartilhar, imprima a página e escolha "Salvar como PDF" como destino.',
  receiptView: "Ver comprovante",
  receiptBack: "Voltar à transação",
  receiptKey: "Chave PIX",
  receiptDocument: "CPF/CNPJ",
  livePaid: "Pagamento recebido.",
  liveWaiting: "Aguardando o pagamento: esta página se atualiza sozinha.",
  accountMenu: "Conta e idioma",
  receiptPdf: "Baixar comprovante em PDF",
  statementPdf: "Baixar extrato mensal em PDF",
  statementMonth: "Mês do extrato",
  livePayoutWaiting: "Aguardando a confirmação do banco: esta página se atualiza sozinha.",
  livePayoutDone: "Saque concluído.",
  livePayoutFailed: "O saque falhou; o valor e a tarifa voltaram ao saldo.",
  alreadyPaid: "Esta cobrança já foi paga.",
  paidAt: "Paga em",
  // Money-safe forms: one-time form tokens, the payout review's figures, keys shown once.
  formTokenInvalid: "Este formulário não vale mais: abra a página de novo e repita a operação.",
  formRepeated:
    "Este formulário já tinha sido enviado: este é o resultado do primeiro envio; nada foi feito de novo.",
  amountSent: "Valor enviado (o destinatário recebe)",
  totalDebited: "Total debitado (valor + tarifa)",
  balanceNow: "Saldo disponível agora",
  balanceAfter: "Saldo depois do saque",
  feeOnTop: "A tarifa é debitada do seu saldo além do valor enviado; o destinatário recebe o valor inteiro.",
  balanceShort: "Saldo insuficiente para este saque. Faltam",
  balanceShortHint: "Se confirmar, o saque será recusado e nada sairá do saldo.",
  keyCreated: "Chave criada.",
  keyShownOnce:
    "Esta chave já foi criada. O segredo é mostrado uma única vez e não pode ser exibido de novo; se não o guardou, revogue a chave e crie outra.",
  signingKeyShownOnce:
    "Já feito. A chave de assinatura é mostrada uma única vez e não pode ser exibida de novo; se não a guardou, gere outra.",
  // Exports and the message catalogue
  exportCsvIntl: "CSV internacional",
  exportCsvHint: "Planilha em português: separador ;, vírgula decimal, horário de São Paulo",
  exportOfx: "Extrato OFX",
  exportOfxHint:
    "Para o sistema contábil ou o GnuCash: as movimentações do saldo no período, com as tarifas à parte",
  exports: "Exportar",
  chargeback: "Contestação",
  chargebackOpen: "aberta",
  chargebackAccepted: "aceita (valor devolvido ao pagador)",
  chargebackRejected: "recusada (valor liberado)",
  day: "Dia",
  // panel-access: two-factor, roles, audit log, sessions, reset link
  security: "Segurança",
  sessions: "Sessões",
  audit: "Auditoria",
  twoFactor: "Verificação em duas etapas",
  twoFactorOn: "A verificação em duas etapas está ativa.",
  twoFactorOff: "A verificação em duas etapas não está ativa.",
  twoFactorStart: "Ativar verificação em duas etapas",
  twoFactorScan:
    "Leia o QR Code com um aplicativo autenticador (ou digite a chave) e informe o código de 6 dígitos.",
  twoFactorSecret: "Chave",
  twoFactorCode: "Código do aplicativo (ou código de recuperação)",
  twoFactorConfirm: "Confirmar",
  twoFactorWrong: "Código incorreto ou já usado.",
  twoFactorDisable: "Desativar verificação em duas etapas",
  twoFactorDisabled: "Verificação em duas etapas desativada.",
  twoFactorRequired: "Esta ação em produção pede a verificação em duas etapas.",
  twoFactorEnrolFirst: "Ative a verificação em duas etapas para fazer esta ação em produção.",
  twoFactorStep: "Informe o código do seu aplicativo autenticador.",
  recoveryCodes: "Códigos de recuperação",
  recoveryCodesNote:
    "Guarde estes códigos agora: cada um entra uma vez sem o aplicativo. Eles não serão mostrados de novo.",
  recoveryLeft: "Códigos de recuperação restantes",
  forbiddenRole: "Seu papel não permite esta ação.",
  role: "Papel",
  role_owner: "Proprietário",
  role_finance: "Financeiro",
  role_developer: "Desenvolvedor",
  role_viewer: "Leitura",
  currentSession: "Esta sessão",
  endSession: "Encerrar",
  sessionRevoked: "Sessão encerrada.",
  started: "Início",
  address: "Endereço",
  browser: "Navegador",
  who: "Quem",
  auditWhen: "Quando",
  action: "Ação",
  object: "Objeto",
  older: "Mais antigos",
  resetPassword: "Nova senha",
  resetInvalid: "Este link de redefinição é inválido, já foi usado ou expirou.",
  // ---- panel flows: test event, next attempt, first steps, search, invites, session, production, rotation ----
  testEventHint:
    "Envia um evento de teste (webhook.test) para o endereço acima, assinado como os outros. Nenhum dinheiro é movimentado.",
  testEventSent: "Evento de teste enviado. Acompanhe a entrega no registro abaixo.",
  noEndpoint: "Configure o endereço do webhook antes de enviar um evento de teste.",
  nextAttempt: "Próxima tentativa",
  firstSteps: "Primeiros passos",
  firstStepsIntro: "Três passos para começar a receber PIX. Cada um é marcado quando estiver feito.",
  stepKey: "Criar uma chave de API",
  stepKeyHave: "Você já tem chave de API ativa neste modo ({n}): veja as suas chaves",
  stepWebhook: "Configurar o webhook",
  stepCharge: "Fazer uma cobrança de teste",
  stepDone: "feito",
  stepTodo: "a fazer",
  noActivity: "Ainda não há movimentação nos últimos 30 dias.",
  search: "Buscar",
  searchLabel: "Buscar por ID da transação, txid, identificador end-to-end ou valor",
  searchResults: "Resultados da busca por",
  searchNone: "Nenhuma transação encontrada para",
  searchHint: "Valor como 1.234,56 ou 1234.56.",
  inviteValid: "Crie sua senha para entrar no painel.",
  inviteUsed: "Este convite já foi usado. Entre com seu e-mail e senha ou peça um novo convite.",
  inviteExpired: "Este convite expirou. Peça um novo convite a quem administra a conta.",
  inviteUnknown: "Este link de convite não é válido. Confira se ele foi copiado por inteiro.",
  goToSignIn: "Ir para a entrada",
  sessionExpired: "Sua sessão expirou. Entre de novo para voltar à página em que estava.",
  liveBank: "Banco da produção",
  liveNotEnabled:
    "A produção ainda não está habilitada nesta instalação: nenhum banco foi configurado. Use o modo de teste ou peça ao responsável pela plataforma que configure o banco.",
  rotateSecretTitle: "Gerar um novo segredo?",
  rotateSecretConfirm:
    "O segredo atual deixa de valer agora: as próximas mensagens já levam o novo. Atualize o seu sistema logo em seguida para não recusar mensagens.",
  rotateSecretYes: "Sim, gerar novo segredo",
  rotateKeyTitle: "Gerar uma nova chave de assinatura?",
  rotateKeyConfirm:
    "A nova chave será mostrada uma única vez. A chave atual continua valendo pelo período escolhido; coloque a nova no seu sistema antes que ele termine.",
  rotateKeyYes: "Sim, gerar nova chave",
  webhooksIntro:
    "O webhook avisa o seu sistema quando algo acontece, como uma cobrança paga ou um saque concluído: enviamos uma mensagem para o endereço abaixo.",
  signingPlain:
    "cabeçalho com a assinatura de cada mensagem, feita com a sua chave de assinatura: o seu sistema confere a assinatura para ter certeza de que a mensagem veio de nós.",
  secretPlain: "cabeçalho com o seu segredo, para sistemas mais antigos que conferem só o segredo."
}

type Words = { readonly [K in keyof typeof pt]: string }

const en: Words = {
  ...Security.en,
  title: "Pixgate panel",
  skip: "Skip to content",
  overview: "Overview",
  transactions: "Transactions",
  charges: "Charges",
  links: "Links",
  infractions: "Infractions",
  subscriptions: "Subscriptions",
  customers: "Customers",
  payouts: "Payouts",
  keys: "API keys",
  webhooks: "Webhooks",
  password: "Password",
  signIn: "Sign in",
  signOut: "Sign out",
  email: "E-mail",
  passwordLabel: "Password",
  wrongPassword: "Wrong e-mail or password.",
  tooMany: "Too many attempts. Try again in a few minutes.",
  mode: "Mode",
  test: "Test",
  live: "Live",
  language: "Language",
  available: "Available",
  pending: "Incoming (pending charges)",
  held: "Held by chargebacks",
  last30: "Last 30 days",
  received: "Charges received",
  sent: "Payouts sent",
  fees: "Fees",
  webhookFailing: "Your webhook endpoint is failing:",
  webhookResent: "Resend queued: the deliveries that failed in the period go out a few at a time.",
  webhookEnabled: "Endpoint enabled: the held deliveries are being resent.",
  seeLog: "See the delivery log",
  type: "Type",
  status: "Status",
  from: "From",
  to: "To",
  filter: "Filter",
  exportCsv: "Export CSV",
  any: "Any",
  amount: "Amount",
  fee: "Fee",
  net: "Net",
  created: "Created",
  updated: "Updated",
  id: "ID",
  none: "Nothing here yet.",
  previous: "Previous",
  next: "Next",
  page: "Page",
  of: "of",
  details: "Details",
  timeline: "Timeline",
  events: "Events",
  deliveries: "Webhook deliveries",
  attempts: "Attempts",
  redeliver: "Redeliver",
  payNow: "Pay now (sandbox)",
  receivedAmount: "Amount received",
  newCharge: "New charge",
  description: "Description",
  payerName: "Payer name",
  payerDoc: "Payer CPF or CNPJ",
  optional: "optional",
  create: "Create",
  qrAlt: "PIX QR code of the charge",
  copyPaste: "PIX copy and paste",
  copy: "Copy",
  copied: "Copied",
  newPayout: "New payout",
  pixKey: "Destination PIX key",
  review: "Review",
  confirmPayout: "Confirm payout",
  cancel: "Cancel",
  debited: "Debited from the balance",
  prefix: "Prefix",
  lastUsed: "Last used",
  never: "Never",
  revoked: "Revoked",
  active: "Active",
  createKey: "Create key",
  revoke: "Revoke",
  revokeConfirm: "Revoke this key? Requests with it get 401 from then on.",
  keyOnce: "Copy the key now: it will not be shown again.",
  url: "URL",
  secret: "Secret",
  save: "Save",
  rotate: "Rotate secret",
  signingKey: "Signing key",
  signingKeyOnce:
    "Copy the signing key now: it will not be shown again. Your receiver verifies the webhook-signature header with it.",
  rotateSigningKey: "Rotate signing key",
  overlap: "The previous key keeps signing for",
  overlapNone: "None (switch at once)",
  overlapHour: "1 hour",
  overlapDay: "24 hours",
  overlapWeek: "7 days",
  previousKeyUntil: "The previous key also signs deliveries until",
  signingExplain:
    "is signed (Standard Webhooks, HMAC-SHA256) with this endpoint's signing key, which Pixgate makes and shows once: verify it with any Standard Webhooks library.",
  secretExplain:
    "carries the secret as is, on every delivery: it identifies the sender, but whoever sees one delivery knows it, so it signs nothing.",
  signingKeyLost:
    'Lost the signing key, or the endpoint predates it? Rotate it (with "None" the new key applies at once).',
  health: "Endpoint health",
  consecutiveFailures: "Failures in a row",
  failingSince: "Failing since",
  pendingDeliveries: "Deliveries pending",
  webhookFailingCount: "attempts in a row failed.",
  sendTest: "Send a test event",
  sendTestHint: "Sends this mode's latest event to the endpoint again.",
  deliveryLog: "Delivery log",
  statusCode: "Code",
  duration: "Duration",
  time: "Time",
  event: "Event",
  changePassword: "Change password",
  currentPassword: "Current password",
  newPassword: "New password",
  passwordChanged: "Password changed. Your other sessions were signed out.",
  setPassword: "Set password",
  inviteInvalid: "This invite is invalid, used or expired.",
  passwordRule: "The password must be 10 to 200 characters.",
  notFound: "Not found",
  forbidden: "Request refused (missing or invalid CSRF token).",
  saved: "Saved.",
  testSent: "Test event sent.",
  error: "Error",
  chargeCreated: "Charge created.",
  payoutCreated: "Payout sent.",
  paid: "Payment recorded.",
  redelivered: "Redelivery scheduled.",
  keyRevoked: "Key revoked.",
  liveOnlyNote: "Sandbox actions exist in test mode only.",
  amountHint: "In reais, e.g. 12.34",
  chart: "Chart of the last 30 days: charges received, payouts sent and fees per day",
  expires: "Expires",
  signedInAs: "Signed in as",
  refundCreated: "Refund requested.",
  // Layout, receipts (comprovantes), live status and white-label
  lookSupport: "Support",
  receipt: "Receipt",
  receiptCharge: "PIX payment receipt",
  receiptPayout: "PIX transfer receipt",
  receiptPayer: "Payer",
  receiptRecipient: "Recipient",
  receiptWhen: "Date and time (Brasília time)",
  receiptE2e: "End-to-end ID (E2E)",
  receiptTxid: "Identifier (txid)",
  receiptTransaction: "Transaction ID",
  receiptIssuer: "Issued by",
  receiptTestMark: "Test mode: no money moved",
  receiptSavePdf: "Save as PDF",
  receiptPrintHint: 'To save or share it, print the page and pick "Save as PDF" as the destination.',
  receiptView: "View receipt",
  receiptBack: "Back to the transaction",
  receiptKey: "PIX key",
  receiptDocument: "CPF/CNPJ",
  livePaid: "Payment received.",
  liveWaiting: "Waiting for the payment: this page updates by itself.",
  accountMenu: "Account and language",
  receiptPdf: "Download the PDF receipt",
  statementPdf: "Download the monthly statement (PDF)",
  statementMonth: "Statement month",
  livePayoutWaiting: "Waiting for the bank's confirmation: this page updates by itself.",
  livePayoutDone: "Payout completed.",
  livePayoutFailed: "The payout failed; the amount and the fee are back on the balance.",
  alreadyPaid: "This charge is already paid.",
  paidAt: "Paid at",
  // Money-safe forms: one-time form tokens, the payout review's figures, keys shown once.
  formTokenInvalid: "This form is no longer valid: open the page again and repeat the operation.",
  formRepeated:
    "This form had already been sent: this is the result of the first submission; nothing was done again.",
  amountSent: "Amount sent (the recipient receives it)",
  totalDebited: "Total debited (amount + fee)",
  balanceNow: "Available balance now",
  balanceAfter: "Balance after the payout",
  feeOnTop:
    "The fee is debited from your balance on top of the amount sent; the recipient receives the whole amount.",
  balanceShort: "Insufficient balance for this payout. Missing",
  balanceShortHint: "If you confirm, the payout will be refused and nothing will leave the balance.",
  keyCreated: "Key created.",
  keyShownOnce:
    "This key was already created. Its secret is shown only once and cannot be shown again; if you did not keep it, revoke the key and create another.",
  signingKeyShownOnce:
    "Already done. The signing key is shown only once and cannot be shown again; if you did not keep it, make another.",
  // Exports and the message catalogue
  exportCsvIntl: "International CSV",
  exportCsvHint: "Brazilian spreadsheet: ; separator, decimal comma, São Paulo time",
  exportOfx: "OFX statement",
  exportOfxHint: "For accounting software or GnuCash: the balance's movements in the period, fees apart",
  exports: "Export",
  chargeback: "Chargeback",
  chargebackOpen: "open",
  chargebackAccepted: "accepted (money returned to the payer)",
  chargebackRejected: "rejected (money released)",
  day: "Day",
  // panel-access: two-factor, roles, audit log, sessions, reset link
  security: "Security",
  sessions: "Sessions",
  audit: "Audit log",
  twoFactor: "Two-step verification",
  twoFactorOn: "Two-step verification is on.",
  twoFactorOff: "Two-step verification is off.",
  twoFactorStart: "Turn on two-step verification",
  twoFactorScan: "Scan the QR code with an authenticator app (or type the key) and enter the 6-digit code.",
  twoFactorSecret: "Key",
  twoFactorCode: "Code from the app (or a recovery code)",
  twoFactorConfirm: "Confirm",
  twoFactorWrong: "Wrong or already used code.",
  twoFactorDisable: "Turn off two-step verification",
  twoFactorDisabled: "Two-step verification turned off.",
  twoFactorRequired: "This live action asks for two-step verification.",
  twoFactorEnrolFirst: "Turn on two-step verification to do this in live mode.",
  twoFactorStep: "Enter the code from your authenticator app.",
  recoveryCodes: "Recovery codes",
  recoveryCodesNote:
    "Keep these codes now: each signs in once without the app. They will not be shown again.",
  recoveryLeft: "Recovery codes left",
  forbiddenRole: "Your role does not allow this action.",
  role: "Role",
  role_owner: "Owner",
  role_finance: "Finance",
  role_developer: "Developer",
  role_viewer: "Viewer",
  currentSession: "This session",
  endSession: "End",
  sessionRevoked: "Session ended.",
  started: "Started",
  address: "Address",
  browser: "Browser",
  who: "Who",
  auditWhen: "When",
  action: "Action",
  object: "Object",
  older: "Older",
  resetPassword: "New password",
  resetInvalid: "This reset link is invalid, used or expired.",
  // ---- panel flows: test event, next attempt, first steps, search, invites, session, production, rotation ----
  testEventHint:
    "Sends a test event (webhook.test) to the address above, signed like every other. No money moves.",
  testEventSent: "Test event sent. Follow its delivery in the log below.",
  noEndpoint: "Set the webhook address before sending a test event.",
  nextAttempt: "Next attempt",
  firstSteps: "First steps",
  firstStepsIntro: "Three steps to start receiving PIX. Each is ticked once it is done.",
  stepKey: "Create an API key",
  stepKeyHave: "You already have an active API key in this mode ({n}): see your keys",
  stepWebhook: "Set up the webhook",
  stepCharge: "Make a test charge",
  stepDone: "done",
  stepTodo: "to do",
  noActivity: "No activity in the last 30 days yet.",
  search: "Search",
  searchLabel: "Search by transaction id, txid, end-to-end id or amount",
  searchResults: "Search results for",
  searchNone: "No transaction found for",
  searchHint: "Amount as 1,234.56 or 1234.56.",
  inviteValid: "Choose your password to enter the panel.",
  inviteUsed: "This invite was already used. Sign in with your e-mail and password, or ask for a new invite.",
  inviteExpired: "This invite has expired. Ask your account administrator for a new one.",
  inviteUnknown: "This invite link is not valid. Check that it was copied whole.",
  goToSignIn: "Go to sign-in",
  sessionExpired: "Your session expired. Sign in again to return to the page you were on.",
  liveBank: "Production bank",
  liveNotEnabled:
    "Production is not enabled on this installation yet: no bank is configured. Use test mode, or ask the platform's operator to configure the bank.",
  rotateSecretTitle: "Make a new secret?",
  rotateSecretConfirm:
    "The current secret stops working now: the next messages carry the new one. Update your system right after, so it does not refuse messages.",
  rotateSecretYes: "Yes, make a new secret",
  rotateKeyTitle: "Make a new signing key?",
  rotateKeyConfirm:
    "The new key is shown only once. The current key keeps working for the period you chose; put the new one in your system before it ends.",
  rotateKeyYes: "Yes, make a new key",
  webhooksIntro:
    "The webhook tells your system when something happens, such as a charge paid or a payout completed: we send a message to the address below.",
  signingPlain:
    "header with each message's signature, made with your signing key: your system checks it to be sure the message came from us.",
  secretPlain: "header with your secret, for older systems that only check the secret."
}

/** The words of a language. */
export type Dictionary = Words

/** The dictionary of `lang`. */
export const words = (lang: Lang): Dictionary => (lang === "en" ? en : pt)

const statusWords: Readonly<Record<Lang, Readonly<Record<string, string>>>> = {
  "pt-BR": {
    pending: "Pendente",
    failed: "Falhou",
    deposit: "Cobrança",
    withdrawal: "Saque",
    payment: "Pagamento",
    delivered: "Entregue",
    healthy: "Saudável",
    failing: "Falhando"
  },
  en: {
    pending: "Pending",
    failed: "Failed",
    deposit: "Charge",
    withdrawal: "Payout",
    payment: "Payment",
    delivered: "Delivered",
    healthy: "Healthy",
    failing: "Failing"
  }
}

/**
 * A type, or a delivery's or endpoint's state, as the panel names it. A transaction's or
 * refund's status is `Messages.statusLabel` (agreeing with its type: `Paga`, `Concluído`).
 */
export const label = (lang: Lang, value: string): string => statusWords[lang][value] ?? value

/** The panel's time zone. */
export const timeZone = "America/Sao_Paulo"

const moneyFormats = {
  "pt-BR": new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" }),
  en: new Intl.NumberFormat("en-US", { style: "currency", currency: "BRL" })
}

/** Centavos as `R$ 1.234,56` (pt-BR) or `R$1,234.56` (en), with plain spaces. */
export const money = (lang: Lang, cents: number): string =>
  moneyFormats[lang].format(cents / 100).replace(/\u00a0/g, " ")

const timeFormats = {
  "pt-BR": new Intl.DateTimeFormat("pt-BR", { timeZone, dateStyle: "short", timeStyle: "medium" }),
  en: new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "short", timeStyle: "medium" })
}

/** An instant in São Paulo time. */
export const time = (lang: Lang, ms: number): string => timeFormats[lang].format(ms)

/** The São Paulo calendar day of an instant, `YYYY-MM-DD`. */
export const day = (ms: number): string => new Intl.DateTimeFormat("en-CA", { timeZone }).format(ms)

const dayFormats = {
  "pt-BR": new Intl.DateTimeFormat("pt-BR", { timeZone: "UTC", dateStyle: "short" }),
  en: new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", dateStyle: "short" })
}

/** A calendar day `YYYY-MM-DD` (a due date: a day, not an instant) as `10/03/2027`. */
export const calendarDay = (lang: Lang, text: string): string => {
  const [y = Number.NaN, m = Number.NaN, d = Number.NaN] = text.split("-").map(Number)
  return dayFormats[lang].format(Date.UTC(y, m - 1, d))
}

/** A form's amount in reais as the engine takes it (a number), accepting `1.234,56` and `1234.56`. */
export const parseAmount = (text: string): unknown => {
  const t = text.trim().replace(/^R\$\s*/, "")
  if (t === "") return undefined
  const normalized = t.includes(",") ? t.replace(/\./g, "").replace(",", ".") : t
  return /^\d+(\.\d+)?$/.test(normalized) ? Number(normalized) : t
}

// ---- Exports and the message catalogue: dates, times and amounts in files and titles ----

const localParts = new Intl.DateTimeFormat("en-GB", {
  timeZone,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23"
})

/** The São Paulo wall clock of an instant: year, month, day, hour, minute, second (2 digits, year 4). */
export const saoPaulo = (
  ms: number
): {
  readonly year: string
  readonly month: string
  readonly day: string
  readonly hour: string
  readonly minute: string
  readonly second: string
} => {
  const parts: Record<string, string> = {}
  for (const p of localParts.formatToParts(ms)) parts[p.type] = p.value
  return {
    year: parts.year ?? "0000",
    month: parts.month ?? "01",
    day: parts.day ?? "01",
    hour: parts.hour ?? "00",
    minute: parts.minute ?? "00",
    second: parts.second ?? "00"
  }
}

/** Minutes São Paulo is ahead of UTC at an instant (-180 since 2019). */
export const saoPauloOffsetMinutes = (ms: number): number => {
  const p = saoPaulo(ms)
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second)
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000)
}

/** The instant São Paulo's calendar day `YYYY-MM-DD` starts, or undefined for no such day. */
export const saoPauloDayStart = (text: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (m === null) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const utc = Date.UTC(y, mo - 1, d)
  const check = new Date(utc)
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return undefined
  // The offset of noon that day is the day's (no change of offset at midnight in São Paulo).
  return utc - saoPauloOffsetMinutes(utc + 12 * 3_600_000) * 60_000
}

/** A São Paulo date `28/10/2026` (pt-BR) or `28/10/2026` (en-GB) of an instant. */
export const localDate = (ms: number): string => {
  const p = saoPaulo(ms)
  return `${p.day}/${p.month}/${p.year}`
}

/** A São Paulo time `23:15:07` of an instant. */
export const localClock = (ms: number): string => {
  const p = saoPaulo(ms)
  return `${p.hour}:${p.minute}:${p.second}`
}

/** The UTC instant as the panel writes it in a title (hover): `2026-10-29 02:15:07 UTC`. */
export const utcTitle = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`

/** Centavos as a plain decimal with two places: `1234,56` (`,`) or `1234.56` (`.`), `-` when negative. */
export const decimal = (cents: number, separator: "," | "."): string => {
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}${separator}${String(abs % 100).padStart(2, "0")}`
}
