/**
 * Non-English attacks (spec §7.1, widened by issue 12): in French, Spanish, German, Russian, Chinese, Italian,
 * Portuguese and Japanese, orders to ignore or forget the assistant's instructions, identity swaps, replacement
 * instructions, orders to reveal the system prompt or send secrets, and concealment from the user.
 *
 * Narrowed as the English rows are: the instructions dropped are "previous" or the assistant's own ("tes
 * instructions", "deine Anweisungen"), so "ignorer les avertissements précédents du linter" and "忽略之前的警告"
 * pass; an identity swap names an assistant or its lost restrictions ("tu es maintenant inscrit sur la liste
 * d'attente" passes); "new instructions" is a header followed by an order ("新的指令集架构是RISC-V" passes); a
 * concealment names the user.
 */
import { gated, type InjectionPattern, row } from "./shared.js"

const DE_PREV = String.raw`(?:vorherigen?|vorigen?|bisherigen?|früheren?|obigen?|vorangegangenen?|vorhergehenden?)`
const DE_RULES = String.raw`(?:anweisungen|instruktionen|befehle|regeln|vorgaben|anordnungen)`
const FR_RULES = String.raw`(?:instructions?|consignes?|directives?|règles?|ordres?)`
const FR_PREV = String.raw`(?:précédentes?|antérieures?|ci-dessus|d'avant|passées?)`
const ES_RULES = String.raw`(?:instrucciones|indicaciones|órdenes|reglas|directrices)`
const ES_PREV = String.raw`(?:anteriores|previas|precedentes|de\sarriba)`
const IT_RULES = String.raw`(?:istruzioni|indicazioni|direttive|regole)`
const IT_PREV = String.raw`(?:precedenti|anteriori|di\sprima|di\ssopra|qui\ssopra|sopra|ricevute)`
const PT_RULES = String.raw`(?:instruções|instrucoes|orientações|orientacoes|diretrizes|regras)`
const PT_PREV = String.raw`(?:anteriores|prévias|previas|acima)`
const RU_PREV =
  String.raw`(?:предыдущие|прошлые|прежние|вышеуказанные|вышеприведённые|вышеприведенные|ранее\sданные` +
  String.raw`|предшествующие)`
const RU_RULES = String.raw`(?:инструкции|указания|команды|правила|директивы)`
const RU_YOUR = String.raw`(?:свои|твои|ваши)`
const NOT_LETTER = String.raw`(?<!\p{L})`
// JS's \b knows only ASCII letters, even with the u flag: word edges here are letter look-arounds.
const W0 = NOT_LETTER
const W1 = String.raw`(?!\p{L})`
const ZH_PREV = String.raw`(?:你)?(?:(?:之前|以前|先前|上面|上述|以上|上文|前述|前面|此前|所有|全部|一切|原来|原來|原有)(?:的)?){1,3}`
const ZH_RULES = String.raw`(?:指令|指示|说明|說明|规则|規則|命令|提示词|提示詞|设定|設定|要求|规定|規定|限制|准则|準則|系统提示|系統提示)`
const ZH_YOUR = String.raw`(?:你的|您的)(?:所有|全部|一切)?(?:的)?`
const JA_PREV = String.raw`(?:以前|前|これまで|上記|今まで|先ほど|さっき)の(?:すべての|全ての)?`
const JA_RULES = String.raw`(?:指示|命令|指令|ルール|プロンプト|設定)`
// An assistant, or one without its restrictions, as each language names it.
const FR_AI = String.raw`(?:assistant|ia|ai|bot|chatbot|modèle|agent|personnage)`
const FR_FREE = String.raw`sans\s(?:aucune\s)?(?:restrictions?|limites?|filtres?|règles?|censure)`
const ES_AI = String.raw`(?:asistente|ia|ai|bot|chatbot|modelo|agente|personaje)`
const ES_FREE = String.raw`sin\s(?:ninguna\s)?(?:restricciones|límites|limites|filtros|reglas|censura)`
const DE_AI = String.raw`(?:assistent|ki|ai|bot|chatbot|modell|agent)`
const DE_FREE = String.raw`ohne\s(?:jegliche\s)?(?:regeln|einschränkungen|filter|grenzen|zensur)`
const RU_AI = String.raw`(?:ассистент|ии|бот|чат-бот|модель|агент|помощник)`
const IT_AI = String.raw`(?:assistente|ia|ai|bot|chatbot|modello|agente)`
const PT_AI = String.raw`(?:assistente|ia|ai|bot|chatbot|modelo|agente)`
// "now", "from now on", in each language
const FR_NOW = String.raw`(?:maintenant|désormais|dorénavant|à\sprésent|à\spartir\sde\smaintenant)`
const ES_NOW = String.raw`(?:ahora|a\spartir\sde\sahora|desde\sahora|de\sahora\sen\sadelante)`
const DE_NOW = String.raw`(?:jetzt|nun|ab\sjetzt|von\snun\san|ab\ssofort)`
const RU_NOW = String.raw`(?:теперь|отныне|с\sэтого\sмомента|с\sэтой\sминуты)`
const IT_NOW = String.raw`(?:ora|adesso|da\sora\sin\spoi|d'ora\sin\spoi)`
const PT_NOW = String.raw`(?:agora|a\spartir\sde\sagora|de\sagora\sem\sdiante)`
// Somewhere a secret is sent: a URL, a domain, an e-mail address.
const DEST = String.raw`(?:https?:|www\.|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}${W1}|[^\s@]{1,64}@[\w-]+\.)`

// A row of this family can match only where the text has one of its words, in any of its languages; most text
// (English, or another language with no such order) opens none of these gates.
const gateFor = (stems: string): RegExp => new RegExp(stems, "u")
const IGNORE_STEMS =
  String.raw`\bignor(?:ez|er|a|ad|en|ar|iere|ieren|iert|are|ate|em)\b|\bignore\s(?:toutes?|les|tes|vos|des|todas|las` +
  String.raw`|tus|sus|as|suas|tuas|todo)\b|игнор|忽略|忽视|忽視|无视|無視|不要理|跳过|跳過`
const DISREGARD_STEMS =
  String.raw`\b(?:oubli|olvid|vergi?ss|vergess|missacht|dimentic|esque|desconsider|ignorier|befolge|beachte)` +
  String.raw`|abstraction|caso\somiso|tiens\spas|tenez\spas|tenere\sconto|\bne\s(?:suis|suivez|respecte|obéis)` +
  String.raw`|\bno\s(?:sigas?|sigan|obedezc|cumplas?|respetes?)|\bhalte?\s(?:dich|sich)|\bnon\s(?:seguire|rispettare` +
  String.raw`|obbedire|seguite|rispettate)|\bn(?:ã|a)o\s|\bignora\b|\bignore\s(?:tes|vos|todas|as|suas)\b|забуд` +
  String.raw`|забыть` +
  String.raw`|не\sобращ|не\s(?:выполняй|слушай|соблюдай|следуй)|忘|放弃|放棄|抛弃|拋棄|遵守|遵循|服从|服從|听从|聽從` +
  String.raw`|系统指令|系统提示|無視`
const IDENTITY_STEMS =
  String.raw`\btu\s(?:es|seras)\b|\beres\b|\bser(?:as|ás)\b|\bdu\sbist\b|\bbist\sdu\b|\bsei\b|\bdiventi\b` +
  String.raw`|\bvoc(?:e|ê)\b|\btu\s(?:és|es)\b|\bés\b|теперь|отныне|с\sэтого|你现在|你現在|从现在|從現在|现在你|現在你` +
  String.raw`|你从现在|あなたは`
const NEW_STEMS = String.raw`\bnouvelles?\s|\bnuevas\s|\bneue\s|\bnuove\s|\bnovas\s|новые|新的|新指令|新指示|新规则|新規則|新しい`
const PROMPT_STEMS =
  String.raw`prompt\s(?:syst|del\b|de\s|di\s|do\s|initial|inicial|iniziale)|systemprompt|system-prompt` +
  String.raw`|systemanweisung|anfangsanweisung|anweisungen|instructions\s(?:initiales|syst|cach)|consignes` +
  String.raw`|instrucciones|istruzioni|instru(?:ç|c)(?:õ|o)es|mensaje\sdel|messaggio\sdi|message\ssyst|системн|промпт` +
  String.raw`|инструкци|系统|系統|提示|指令|システム|初期指示|隠された`
const SECRET_STEMS =
  String.raw`\b(?:envoi|envoy|transmet|partage|publie|envi(?:a|í)|manda|comparte|sube\b|publica\b|schick|sende\b` +
  String.raw`|teile\b` +
  String.raw`|lade\b|invia|condividi|carica\b|envie\b|mande\b|compartilhe|carregue|übermittle|téléverse)|отправь` +
  String.raw`|пришли` +
  String.raw`|перешли|передай|загрузи|вышли|密钥|密鑰|密码|密碼|令牌|凭据|憑據|凭证|憑證|机密|機密|キー|パスワード|秘密鍵` +
  String.raw`|トークン|認証情報|シークレット`
const CONCEAL_STEMS =
  String.raw`\bne\s(?:lui|le|la|les|dis|dites|raconte|mentionne|révèle)\b|\bno\s(?:le\s)?(?:digas|diga|cuentes` +
  String.raw`|menciones|reveles)|\bsag(?:e|en)?\s(?:dem|der)\b|erzähl|erwähn|verrate|\bnon\s(?:dir|racc|menz)` +
  String.raw`|\bn(?:ã|a)o\s|не\s(?:говори|сообщай|рассказывай|упоминай|показывай)|不要|别|別|不准|切勿|ユーザー`

/** "ignore" verbs, then "forget/disregard" verbs, identity swaps, new instructions, prompt and secret leaks. */
export const NON_ENGLISH: ReadonlyArray<InjectionPattern> = [
  gated(
    gateFor(IGNORE_STEMS),
    row(
      "non-english-ignore-instructions",
      "non-english: ignore previous instructions",
      String.raw`${W0}ignor(?:e|ez|er)\s(?:toutes?\s)?(?:les|tes|vos|des)\s(?:${FR_RULES}\s${FR_PREV}|` +
        String.raw`(?:précédentes?|anciennes?)\s${FR_RULES})`,
      String.raw`${W0}ignor(?:e|ez|er)\s(?:toutes?\s)?(?:tes|vos)\s${FR_RULES}`,
      String.raw`${W0}ignor(?:a|e|ad|en|ar)\s(?:todas\s)?(?:las\s|tus\s|sus\s)?${ES_RULES}\s${ES_PREV}`,
      String.raw`${W0}ignor(?:a|e|ad|en|ar)\s(?:todas\s)?(?:tus|sus)\s${ES_RULES}`,
      String.raw`${W0}ignorier(?:e|en|t)?\s(?:sie\s)?(?:bitte\s)?(?:alle\s)?(?:die\s|deine\s|ihre\s|sämtliche\s)?` +
        String.raw`${DE_PREV}\s${DE_RULES}`,
      String.raw`${W0}ignorier(?:e|en|t)?\s(?:sie\s)?(?:bitte\s)?(?:alle\s)?(?:deine|ihre|sämtliche)\s${DE_RULES}`,
      String.raw`${W0}(?:alle\s)?${DE_PREV}\s${DE_RULES}\s(?:ignorieren|ignoriere)`,
      String.raw`${NOT_LETTER}(?:про)?игнорир(?:уй(?:те)?|овать)\s(?:все\s)?(?:${RU_PREV}|${RU_YOUR})\s${RU_RULES}`,
      String.raw`${NOT_LETTER}${RU_PREV}\s${RU_RULES}\s(?:про)?игнорир`,
      String.raw`(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|跳过|跳過)(?:掉)?(?:${ZH_PREV}|${ZH_YOUR})${ZH_RULES}`,
      String.raw`${W0}ignor(?:a|are|ate)\s(?:tutte\s)?(?:le\s)?${IT_RULES}\s${IT_PREV}`,
      String.raw`${W0}ignor(?:a|are|ate)\s(?:tutte\s)?(?:le\s)?(?:tue|vostre|sue)\s${IT_RULES}`,
      String.raw`${W0}ignor(?:e|a|em|ar)\s(?:todas\s)?(?:as\s)?${PT_RULES}\s${PT_PREV}`,
      String.raw`${W0}ignor(?:e|a|em|ar)\s(?:todas\s)?(?:as\s)?(?:suas|tuas|vossas)\s${PT_RULES}`,
      String.raw`${JA_PREV}${JA_RULES}(?:は|を)(?:すべて|全て|全部)?無視`,
      String.raw`(?:すべて|全て|全部)の${JA_RULES}(?:は|を)無視`
    )
  ),
  gated(
    gateFor(DISREGARD_STEMS),
    row(
      "non-english-disregard-instructions",
      "non-english: disregard instructions",
      String.raw`${W0}oubli(?:e|ez|er)\s(?:toutes?\s)?(?:les|tes|vos)\s(?:${FR_RULES}\s${FR_PREV}|` +
        String.raw`(?:précédentes?|anciennes?)\s${FR_RULES})`,
      String.raw`${W0}oubli(?:e|ez|er)\s(?:toutes?\s)?(?:tes|vos)\s${FR_RULES}`,
      String.raw`${W0}oubli(?:e|ez|er)\s(?:absolument\s)?tout\sce\squ[^\n.]{0,20}?${W0}(?:dit|appris|demandé|indiqué` +
        String.raw`|précède|sais|donné)${W1}`,
      String.raw`${W0}ne\s(?:tiens|tenez)\spas\scompte\s(?:des\s${FR_RULES}\s${FR_PREV}|de\s(?:tes|vos)\s${FR_RULES})`,
      String.raw`${W0}fai(?:s|tes)\sabstraction\s(?:des|de\s(?:tes|vos))\s${FR_RULES}`,
      String.raw`${W0}olvid(?:a|e|ad|en|ar)\s(?:todas\s)?(?:las\s|tus\s)?${ES_RULES}\s${ES_PREV}`,
      String.raw`${W0}(?:olvid|ignor)(?:a|e|ad|en|ar)\s(?:todo\slo\s(?:que|anterior)|(?:todas\s)?(?:tus|sus)` +
        String.raw`\s${ES_RULES})`,
      String.raw`${W0}haz\scaso\somiso\sde\s(?:(?:todas\s)?(?:las\s)?${ES_RULES}\s${ES_PREV}|(?:tus|sus)\s${ES_RULES})`,
      String.raw`${W0}(?:verg(?:iss|esst|essen\ssie)|missachte(?:n\ssie)?)\s(?:bitte\s)?(?:alle\s)?` +
        String.raw`(?:die\s|deine\s|ihre\s)?${DE_PREV}\s${DE_RULES}`,
      String.raw`${W0}(?:verg(?:iss|esst|essen\ssie)|missachte(?:n\ssie)?)\s(?:bitte\s)?(?:alle\s)?(?:deine|ihre)\s` +
        DE_RULES,
      String.raw`${W0}(?:verg(?:iss|esst|essen\ssie)|ignorier(?:e|en|t)?)\s(?:bitte\s)?alles\s?,?\s(?:was|bisher` +
        String.raw`|vorher` +
        String.raw`|zuvor|oben)${W1}`,
      String.raw`${W0}(?:alle\s)?${DE_PREV}\s${DE_RULES}\s(?:vergessen|vergiss)`,
      String.raw`${NOT_LETTER}(?:забудь(?:те)?|забыть|не\sобращай(?:те)?\sвнимания\sна)\s(?:все\s)?` +
        String.raw`(?:${RU_PREV}|${RU_YOUR})\s${RU_RULES}`,
      String.raw`${NOT_LETTER}(?:забудь(?:те)?|забыть)\s(?:всё|все|обо\sвсём)\s?,?\s(?:что|чему|о\sчём|сказанное` +
        String.raw`|раньше|ранее|до\sэтого)`,
      String.raw`(?:忘记|忘記|忘掉|忘了|放弃|放棄|抛弃|拋棄|不要遵守|不再遵守|不要遵循|别遵守|別遵守)(?:${ZH_PREV}|${ZH_YOUR})` +
        ZH_RULES,
      String.raw`${NOT_LETTER}не\s(?:выполняй|слушай|соблюдай|следуй|слушайся)(?:те)?\s(?:свои|твои|ваши|эти|своим|` +
        String.raw`твоим` +
        String.raw`|вашим|этим)?\s?(?:инструкции|правила|указания|инструкциям|правилам|указаниям)(?!\p{L})`,
      String.raw`(?:忘记|忘記|忘掉)(?:你)?(?:之前|以前|先前|此前|上面)?(?:收到|得到|接受|接到|看到|学到|學到|被告知)的` +
        String.raw`(?:所有|全部|一切)?(?:的)?${ZH_RULES}`,
      String.raw`(?:忘记|忘記|忘掉)(?:之前的|以前的)?(?:一切|所有的?事)`,
      String.raw`${W0}dimentic(?:a|are|ate)\s(?:tutte\s)?(?:le\s)?${IT_RULES}\s${IT_PREV}`,
      String.raw`${W0}dimentic(?:a|are|ate)\s(?:tutto\s(?:quello|ciò|cio)\sche|(?:tutte\s)?le\s(?:tue|vostre)\s` +
        String.raw`${IT_RULES})`,
      String.raw`${W0}non\stenere\sconto\sdelle\s${IT_RULES}\s${IT_PREV}`,
      // the assistant's rules no longer followed
      String.raw`${W0}ne\s(?:suis|suivez|respecte|respectez|obéis|obéissez)\s(?:plus|pas)\s(?:à\s)?(?:tes|vos)` +
        String.raw`\s${FR_RULES}`,
      String.raw`${W0}no\s(?:sigas|siga|sigan|obedezcas|obedezca|cumplas|cumpla|respetes|respete)\s(?:más\s)?(?:tus|` +
        String.raw`sus)\s` +
        ES_RULES,
      String.raw`${W0}(?:befolge|befolgen\ssie|beachte|beachten\ssie)\s(?:deine|ihre)\s${DE_RULES}\snicht${W1}` +
        String.raw`|${W0}halte?\s(?:dich|sich)\snicht\s(?:mehr\s)?an\s(?:deine|ihre)\s${DE_RULES}`,
      String.raw`${W0}non\s(?:seguire|rispettare|obbedire\salle|seguite|rispettate)\s(?:più\s)?(?:le\s)?(?:tue|vostre` +
        String.raw`|sue)?\s?` +
        IT_RULES,
      String.raw`${W0}desconsider(?:e|a|ar|em)\s(?:todas\s)?(?:as\s)?(?:suas|tuas)\s${PT_RULES}`,
      String.raw`${W0}não\s(?:siga|sigas|obedeça|obedeca|cumpra|respeite|sigam)\s(?:mais\s)?(?:as\s)?(?:suas|tuas)` +
        String.raw`\s${PT_RULES}`,
      String.raw`(?:不要|别|別|不再)(?:遵守|遵循|服从|服從|听从|聽從)(?:${ZH_PREV}|${ZH_YOUR})${ZH_RULES}`,
      // the system's own instructions, forgotten: "dimentica le istruzioni di sistema", "oublie les consignes système"
      String.raw`${W0}(?:dimentic(?:a|are|ate)|ignor(?:a|e|ez|er|are|ate)|oubli(?:e|ez|er)|olvid(?:a|e|ad)|esque(?:ça` +
        String.raw`|ca))\s` +
        String.raw`(?:le|les|las|as|tes|tus|tue|suas)\s(?:istruzioni\sdi\ssistema|instructions\ssystème|consignes` +
        String.raw`\ssystème` +
        String.raw`|instrucciones\sdel\ssistema|instruções\sdo\ssistema)`,
      String.raw`${W0}(?:vergiss|ignoriere)\s(?:die|deine)\s(?:systemanweisungen|system-anweisungen|systemprompt)` +
        String.raw`|${NOT_LETTER}(?:забудь|игнорируй)\s(?:системные\sинструкции|системный\sпромпт)` +
        String.raw`|(?:忘记|忽略|无视)(?:你的)?(?:系统指令|系统提示词|系统提示)`,
      String.raw`${W0}(?:esque(?:ça|ca|çam|cam|cer)|desconsider(?:e|a|ar|em))\s(?:todas\s)?(?:as\s)?` +
        String.raw`${PT_RULES}\s${PT_PREV}`,
      String.raw`${W0}esque(?:ça|ca|çam|cam|cer)\s(?:tudo\s(?:o\sque|que)|(?:todas\s)?(?:as\s)?(?:suas|tuas)\s` +
        String.raw`${PT_RULES})`,
      String.raw`${JA_PREV}${JA_RULES}(?:は|を)(?:すべて|全て|全部)?忘れ`
    )
  ),
  gated(
    gateFor(IDENTITY_STEMS),
    row(
      "non-english-identity-replacement",
      "non-english: identity replacement",
      // "you are now …" in either order ("tu es désormais …", "désormais, tu es …")
      String.raw`${W0}(?:tu\s(?:es|seras)\s${FR_NOW}|${FR_NOW}\s?,?\stu\s(?:es|seras))\s(?:un|une)\s` +
        String.raw`(?:[\p{L}-]+\s){0,2}?(?:${FR_AI}${W1}|[^\n.]{0,30}?${FR_FREE})`,
      String.raw`${W0}(?:${ES_NOW}\s?,?\s(?:eres|serás|seras)|(?:eres|serás|seras)\s${ES_NOW})\s(?:un|una)\s` +
        String.raw`(?:[\p{L}-]+\s){0,2}?(?:${ES_AI}${W1}|[^\n.]{0,30}?${ES_FREE})`,
      String.raw`${W0}(?:du\sbist\s${DE_NOW}|${DE_NOW}\sbist\sdu)\s(?:ein|eine)\s(?:[\p{L}-]+\s){0,2}?` +
        String.raw`(?:${DE_AI}${W1}|[^\n.]{0,30}?${DE_FREE})`,
      String.raw`${NOT_LETTER}(?:${RU_NOW}\s?,?\sты|ты\s${RU_NOW})\s(?:[\p{L}-]+\s){0,2}?(?:${RU_AI}` +
        String.raw`(?!\p{L})|[^\n.]{0,30}?без\s(?:каких-либо\s)?(?:ограничений|правил|фильтров|цензуры))`,
      String.raw`(?:你现在是|你現在是|从现在起你是|從現在起你是|从现在开始你是|從現在開始你是|现在你是|現在你是|你从现在起是)` +
        String.raw`(?:一个|一個)?[^\n。]{0,20}?(?:ai|人工智能|助手|机器人|機器人|模型|没有(?:任何)?限制|沒有(?:任何)?限制` +
        String.raw`|不受(?:任何)?限制)`,
      String.raw`${W0}(?:${IT_NOW}\s?,?\s(?:sei|diventi)|(?:sei|diventi)\s${IT_NOW})\s(?:un|una|un')\s?` +
        String.raw`(?:[\p{L}-]+\s){0,2}?(?:${IT_AI}${W1}|[^\n.]{0,30}?senza\s(?:restrizioni|limiti|filtri|regole|` +
        String.raw`censura))`,
      String.raw`${W0}(?:${PT_NOW}\s?,?\s(?:você\sé|voce\se|tu\sés|és)|(?:você|voce|tu)\s${PT_NOW}\s(?:é|e|és))\s` +
        String.raw`(?:um|uma)\s(?:[\p{L}-]+\s){0,2}?(?:${PT_AI}${W1}|[^\n.]{0,30}?sem\s(?:restrições|restricoes` +
        String.raw`|limites|filtros|regras|censura))`,
      String.raw`あなたは(?:今から|これから|今|もう)[^\n。]{0,20}?(?:ai|アシスタント|ボット|モデル|制限のない|制限がない|無制限)`
    )
  ),
  // "New instructions:" as a header, then an order in the same language.
  gated(
    gateFor(NEW_STEMS),
    row(
      "non-english-new-instructions",
      "non-english: follow new instructions",
      String.raw`(?:^|[\n.!?]\s?)nouvelles?\s(?:instructions|consignes|règles|directives)\s?:\s?(?:révèle|revele` +
        String.raw`|envoie` +
        String.raw`|ignore|oublie|réponds|reponds|affiche|donne|tu|vous|toujours|jamais|ne|dis|supprime|exécute)${W1}`,
      String.raw`(?:^|[\n.!?]\s?)nuevas\s(?:instrucciones|reglas|órdenes|directrices)\s?:\s?(?:revela|envía|envia` +
        String.raw`|ignora|olvida|responde|muestra|dame|da|tú|tu|siempre|nunca|no|di|borra|ejecuta)${W1}`,
      String.raw`(?:^|[\n.!?]\s?)neue\s(?:anweisungen|regeln|befehle|vorgaben)\s?:\s?(?:gib|sende|schicke|schick` +
        String.raw`|ignoriere|vergiss|antworte|zeige|zeig|du|immer|nie|niemals|sag|lösche|führe)${W1}`,
      String.raw`${NOT_LETTER}новые\s(?:инструкции|указания|правила|команды)\s?:\s?(?:покажи|отправь|пришли|игнорируй` +
        String.raw`|забудь|отвечай|ответь|ты|всегда|никогда|не|скажи|удали|выполни)(?!\p{L})`,
      String.raw`(?:新的|新)(?:指令|指示|规则|規則|命令)\s?[:：]\s?(?:泄露|洩露|发送|發送|忽略|忘记|忘記|回答|输出|輸出|显示|顯示` +
        String.raw`|你|总是|永远|不要|告诉|告訴|删除|刪除|执行|執行|把|将)`,
      String.raw`(?:^|[\n.!?]\s?)nuove\s(?:istruzioni|regole|direttive)\s?:\s?(?:rivela|invia|ignora|dimentica` +
        String.raw`|rispondi|mostra|dai|tu|sempre|mai|non|di'|elimina|esegui)${W1}`,
      String.raw`(?:^|[\n.!?]\s?)novas\s(?:instruções|instrucoes|regras|diretrizes)\s?:\s?(?:revele|revela|envie` +
        String.raw`|envia|ignore|esqueça|esqueca|responda|mostre|dê|de|você|voce|sempre|nunca|não|nao|diga|apague` +
        String.raw`|execute)${W1}`,
      String.raw`新しい(?:指示|命令|ルール)\s?[:：][^\n]{0,80}?(?:してください|しろ|せよ|送信|表示|無視|忘れ)`
    )
  ),
  gated(
    gateFor(PROMPT_STEMS),
    row(
      "non-english-prompt-exfiltration",
      "non-english: system prompt exfiltration",
      String.raw`${W0}(?:affiche|montre|révèle|revele|donne|répète|repete|imprime|écris|ecris|dis)(?:-moi)?\s` +
        String.raw`(?:moi\s)?` +
        String.raw`(?:ton|tes|votre|vos)\s(?:prompt\s(?:système|systeme|initial)|instructions\s(?:initiales|système` +
        String.raw`|systeme|cachées)|consignes\s(?:initiales|système)|message\ssystème)`,
      String.raw`${W0}(?:revela|muestra|muéstrame|muestrame|dime|imprime|repite|escribe|dame)\s(?:tu|tus|su|sus)\s` +
        String.raw`(?:prompt\s(?:del\ssistema|de\ssistema|inicial)|instrucciones\s(?:iniciales|del\ssistema|ocultas)` +
        String.raw`|mensaje\sdel\ssistema)`,
      String.raw`${W0}(?:zeig(?:e)?|gib|verrate|nenne|wiederhole|drucke|schreib(?:e)?)\s(?:mir\s)?(?:bitte\s)?` +
        String.raw`(?:deinen|deine|dein|ihren|ihre)\s(?:system-?prompt|systemanweisungen|system-anweisungen` +
        String.raw`|anfangsanweisungen|ursprünglichen\sanweisungen|versteckten\sanweisungen)`,
      String.raw`${NOT_LETTER}(?:покажи|выведи|раскрой|напиши|повтори|скажи|дай)(?:те)?\s(?:мне\s)?` +
        String.raw`(?:свой|свои|твой|твои|ваш|ваши)\s(?:системный\sпромпт|системные\sинструкции|исходные\sинструкции` +
        String.raw`|скрытые\sинструкции|системное\sсообщение|промпт)`,
      String.raw`(?:输出|輸出|显示|顯示|告诉我|告訴我|透露|泄露|洩露|打印|重复|重複|给我看|給我看)(?:一下)?(?:你的|您的)` +
        String.raw`(?:系统提示词|系統提示詞|系统提示|系統提示|初始指令|系统指令|系統指令|隐藏指令|隱藏指令|提示词|提示詞)`,
      String.raw`${W0}(?:mostra(?:mi)?|rivela(?:mi)?|dimmi|stampa|ripeti|scrivi)\s(?:il\stuo|i\stuoi|la\stua|le\s` +
        String.raw`tue)\s` +
        String.raw`(?:prompt\s(?:di\ssistema|iniziale)|istruzioni\s(?:iniziali|di\ssistema|nascoste)` +
        String.raw`|messaggio\sdi\ssistema)`,
      String.raw`${W0}(?:mostre|mostra|revele|revela|diga|imprima|repita|escreva)(?:-me)?\s(?:o\sseu|seu|o\steu|teu` +
        String.raw`|as\ssuas|suas|tuas)\s(?:prompt\s(?:de\ssistema|do\ssistema|inicial)|instruções\s(?:iniciais` +
        String.raw`|do\ssistema|ocultas)|instrucoes\s(?:iniciais|do\ssistema))`,
      String.raw`(?:システムプロンプト|初期指示|システム指示|隠された指示)を(?:すべて|全て)?(?:表示|出力|教え|見せ|開示|公開|書き出)`
    )
  ),
  gated(
    gateFor(SECRET_STEMS),
    row(
      "non-english-secret-exfiltration",
      "non-english: transmit secrets",
      String.raw`${W0}(?:envoie|envoyez|transmets|transmettez|partage|partagez|publie|téléverse)(?:-moi)?\s(?:moi\s)?` +
        String.raw`(?:les|tes|vos|la|ta|votre|le|ton)\s(?:clés?\sapi|clés?|mots?\sde\spasse|secrets?|jetons?` +
        String.raw`|identifiants|tokens?|fichier\s\.env)${W1}[^\n]{0,40}?\s(?:à|a|vers|sur)\s${DEST}`,
      String.raw`${W0}(?:envía|envia|enviad|manda|comparte|sube|publica)(?:me)?\s(?:las|tus|sus|la|tu|su|el|los)\s` +
        String.raw`(?:claves?\s(?:de\s)?api|claves?|contraseñas?|contrasenas?|secretos?|tokens?|credenciales)${W1}` +
        String.raw`[^\n]{0,40}?\s(?:a|al|hacia|en)\s${DEST}`,
      String.raw`${W0}(?:schick(?:e)?|sende|übermittle|teile|lade)\s(?:mir\s)?(?:alle\s)?` +
        String.raw`(?:die\s|deine\s|deinen\s|den\s)?` +
        String.raw`(?:api-?schlüssel|schlüssel|passwörter|passwort|geheimnisse|tokens?|zugangsdaten)${W1}[^\n]{0,40}?` +
        String.raw`\s(?:an|zu|nach|auf)\s${DEST}`,
      String.raw`${NOT_LETTER}(?:отправь|пришли|перешли|передай|загрузи|вышли)(?:те)?\s(?:мне\s)?(?:все\s)?` +
        String.raw`(?:api-?ключи|ключи|пароли|пароль|секреты|токены|токен|учётные\sданные|учетные\sданные)` +
        String.raw`(?!\p{L})[^\n]{0,40}?\s(?:на|в|по\sадресу)\s${DEST}`,
      String.raw`(?:api\s?密钥|api\s?密鑰|密钥|密鑰|密码|密碼|令牌|凭据|憑據|凭证|憑證|机密|機密)(?:都)?(?:发送|發送|发给|發給|上传` +
        String.raw`|上傳|传到|傳到|转发|轉發)(?:到|给|給|至)?\s?${DEST}`,
      String.raw`${W0}(?:invia|inviami|manda|mandami|condividi|carica)\s(?:le|tutte\sle|i|tutti\si|la|il)\s` +
        String.raw`(?:chiavi\sapi|chiavi|password|segreti|token|credenziali)${W1}[^\n]{0,40}?\s(?:a|al|su|verso)\s` +
        DEST,
      String.raw`${W0}(?:envie|envia|mande|compartilhe|carregue)\s(?:as|os|a|o|todas\sas|todos\sos)\s` +
        String.raw`(?:chaves\s(?:de\s)?api|chaves|senhas|segredos|tokens|credenciais)${W1}[^\n]{0,40}?` +
        String.raw`\s(?:para|a|ao|em)\s${DEST}`,
      String.raw`(?:apiキー|パスワード|秘密鍵|トークン|認証情報|シークレット)を\s?${DEST}\S{0,200}?\s?(?:に|へ)` +
        String.raw`(?:送信|送っ|アップロード|転送)`
    )
  ),
  gated(
    gateFor(CONCEAL_STEMS),
    row(
      "non-english-concealment",
      "non-english: concealment instruction",
      String.raw`${W0}ne\s(?:lui\s)?(?:dis|dites|raconte|racontez|mentionne|mentionnez|révèle|révélez)\s(?:rien` +
        String.raw`|jamais` +
        String.raw`\srien)${W1}[^\n.]{0,40}?à\sl['’](?:utilisateur|usager)`,
      String.raw`${W0}ne\s(?:le|la|les)\s(?:dis|dites|mentionne|mentionnez)\s(?:pas|jamais)\sà` +
        String.raw`\sl['’](?:utilisateur|usager)`,
      String.raw`${W0}no\s(?:le\s)?(?:digas|diga|cuentes|cuente|menciones|reveles)\s(?:nada|esto` +
        String.raw`|eso)${W1}[^\n.]{0,30}?` +
        String.raw`${W0}al\susuario${W1}`,
      String.raw`${W0}sag(?:e|en\ssie)?\s(?:dem|der)\s(?:benutzer|nutzer|anwender|user)(?:in)?\s` +
        String.raw`(?:nichts|kein\swort)${W1}`,
      String.raw`${W0}(?:erzähl|erwähne|verrate)(?:e)?\s(?:dem|der)\s(?:benutzer|nutzer)(?:in)?\s(?:nichts|nie)${W1}`,
      String.raw`${NOT_LETTER}не\s(?:говори|сообщай|рассказывай|упоминай|показывай)(?:те)?\s(?:об\sэтом\s|ничего\s)?` +
        String.raw`(?:пользователю|юзеру)(?!\p{L})`,
      String.raw`(?:不要|别|別|不准|切勿)(?:告诉|告訴|通知|透露给|透露給)(?:用户|用戶|使用者)`,
      String.raw`${W0}non\s(?:dirlo|dire\s(?:nulla|niente)|dirgli\s(?:nulla|niente)|raccontare\s(?:nulla|niente)` +
        String.raw`|menzionarlo)\s(?:all['’]utente|a\snessuno)`,
      String.raw`${W0}não\s(?:conte|diga|fale|mencione|revele)\s(?:nada|isso|isto)${W1}[^\n.]{0,30}?${W0}(?:ao\s` +
        String.raw`usuário` +
        String.raw`|ao\susuario|ao\sutilizador)${W1}`,
      String.raw`ユーザー(?:に|には)(?:言わ|伝え|教え|知らせ)(?:ないで|ないように|るな)`
    )
  )
]
