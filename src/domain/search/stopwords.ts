/**
 * Words too common to tell one memory from another, in the languages tmem's users write most (en, de, fr, es, it,
 * pt, nl). Lexical search and the local embedder ignore them, so a question's "what did you" never outweighs the
 * one word that names what it is about. Lower-case, as the term normaliser produces them.
 */
const LISTS: Record<string, string> = {
  en:
    "a about above after again against all also am an and any are aren as at be because been before being below " +
    "between both but by can cannot could couldn did didn do does doesn doing don down during each else ever " +
    "every few for from further get gets got had hadn has hasn have haven having he her here hers herself him " +
    "himself his how however i if in into is isn it its itself just let ll me might more most much must mustn my " +
    "myself no nor not now of off on once only or other ought our ours ourselves out over own re same shall shan " +
    "she should shouldn so some such than that the their theirs them themselves then there these they this those " +
    "through to too under until up upon us very was wasn we were weren what when where which while who whom " +
    "whose why will with won would wouldn yes yet you your yours yourself yourselves ve s t d m o y ok okay oh " +
    "yeah hey hi hello thanks thank please really just like well also would one two likely probably perhaps maybe",
  de:
    "aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch auf " +
    "aus bei bin bis bist da damit dann das dass dein deine dem den der des dich die dies diese diesem diesen " +
    "dieser dieses dir doch dort du durch ein eine einem einen einer eines er es etwas euch euer eure für " +
    "gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre im in ist ja " +
    "jede jedem jeden jeder jedes jetzt kann kein keine können könnte machen man mein meine mich mir mit muss " +
    "nach nicht nichts noch nun nur ob oder ohne sehr sein seine sich sie sind so solche soll sollte sondern " +
    "sonst über um und uns unser unter viel vom von vor war waren warum was weil welche welchem welchen " +
    "welcher welches wenn wer werde werden wie wieder will wir wird wo wollen würde zu zum zur zwar zwischen",
  fr:
    "au aux avec ce ces cette dans de des du elle elles en est et être eu il ils je la le les leur leurs " +
    "lui ma mais me même mes moi mon ne nos notre nous on ont ou où par pas pour qu que quel quelle qui sa " +
    "sans se ses si son sont sur ta te tes toi ton tu un une vos votre vous été était étaient avait avoir " +
    "fait faire plus très comme aussi bien tout tous toutes cela ça ceci donc alors quand comment pourquoi",
  es:
    "al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante el ella " +
    "ellas ellos en entre era es esa esas ese eso esos esta estaba estado estas este esto estos fue fueron " +
    "ha había han hasta hay la las le les lo los más me mi mis mucho muy nada ni no nos nosotros o os otra " +
    "otro para pero poco por porque que quien se sea ser si sido sin sobre su sus también tanto te tiene " +
    "tienen todo todos tu tus un una uno unos usted vosotros y ya yo qué cómo dónde cuándo por qué",
  it:
    "a ad al alla alle allo anche che chi ci come con contro cui da dal dalla dei del della delle " +
    "dello di dove e ed era erano essere fra gli ha hanno il in io la le lei li lo loro lui ma mi " +
    "mia mio ne nei nel nella noi non o per perché più quale quando quella quello questa questo " +
    "se sei si sia siamo sono su sua sue suo sul sulla tra tu tua tuo un una uno voi è",
  pt:
    "a ao aos as até com como da das de dela dele deles do dos e ela elas ele eles em " +
    "entre era eram essa esse esta este eu foi foram há isso isto já lhe mais mas me mesmo " +
    "meu minha muito na nas nem no nos nossa nosso num numa não o os ou para pela pelo por " +
    "porque quando que quem se sem ser seu sua são também te tem tinha você vocês à às é",
  nl:
    "aan al alles als bij dan dat de der deze die dit doch door een en er ga gaan geen haar " +
    "had heb hebben heeft hem het hier hij hoe hun ik in is ja je kan kon maar me meer men met " +
    "mij mijn na naar niet niets nog nu of om omdat ons ook op over te tegen toch toen tot u " +
    "uit van veel voor was wat we wel werd wie wij wil worden zal ze zei zich zij zijn zo zou"
}

/** Every stop word of every language above. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  Object.values(LISTS).flatMap((l) => l.split(" ").filter((w) => w !== ""))
)
