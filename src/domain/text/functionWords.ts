/**
 * Function words (articles, pronouns, prepositions, conjunctions, auxiliaries, a few frequent adverbs) per language:
 * words that never name a specific thing, so two texts may differ in them without stating different facts.
 * Negations are kept apart: they are never noise, they flip a fact.
 *
 * The lists are per language on purpose. Their union would make content words of one language vanish in another
 * ("son", "sin", "hat", "war", "dan", "bin" are function words somewhere), and a name read as a function word is a
 * name the merge gate no longer sees.
 */

export const LANGUAGES = ["en", "de", "fr", "es", "it", "pt", "nl"] as const
export type Language = (typeof LANGUAGES)[number]

const words = (s: string): ReadonlySet<string> => new Set(s.trim().split(/\s+/u))

export const FUNCTION_WORDS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: words(`
    a an the this that these those some any each every all both either other another such
    i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
    myself yourself himself herself itself ourselves themselves one ones someone something
    who whom whose which what where when why how whether
    is am are was were be been being do does did doing done have has had having
    will would shall should can could may might must
    and or but so yet if then than because as while though although also too very just only
    of in on at to from by for with about into onto over under between through during before after above below
    up down out off again further via per within along across around near
    there here now still already always often usually really quite rather
    s t d ll re ve m
  `),
  de: words(`
    der die das den dem des ein eine einer eines einem einen
    dieser diese dieses diesem diesen jener jene jenes welcher welche welches
    ich mich mir mein meine meinen meinem meiner du dich dir dein deine er ihn ihm sein seine seinen seinem seiner
    sie ihr ihre ihren ihrem ihrer es wir uns unser unsere euch euer eure man sich
    ist bin bist sind seid war waren wird werden wurde wurden hat habe hast haben hatte hatten
    kann können konnte muss müssen soll sollen will wollen darf mag möchte
    und oder aber doch denn sondern wenn weil dass ob als wie auch noch schon nur sehr so
    in im ins an am auf aus bei mit nach von vom vor zu zum zur über unter durch für gegen um bis seit zwischen
    hier dort da dann jetzt immer oft meist etwa
  `),
  fr: words(`
    le la les l un une des du de d au aux ce cet cette ces
    je j me m moi mon ma mes tu te t toi ton ta tes il elle on lui leur leurs nous vous ils elles se s son sa ses
    notre nos votre vos qui que qu quoi dont où
    est suis es sommes êtes sont était étaient été être ai as a avons avez ont avait avaient
    sera seront peut peuvent doit doivent veut
    et ou mais donc or car si comme aussi très bien encore déjà toujours souvent
    à en dans sur sous par pour avec chez entre vers depuis pendant avant après selon
    y ici là alors
  `),
  es: words(`
    el la los las lo un una unos unas del al este esta estos estas ese esa esos esas aquel aquella
    yo me mi mis tú te ti tu tus él ella ello nos nosotros nosotras vosotros os ellos ellas le les se su sus
    nuestro nuestra nuestros vuestro que quien cual cuyo donde cuando como
    es soy eres somos son era eran fue ser sido está estoy están estaba he ha han había hay
    puede pueden debe deben va van
    y e o u pero si porque aunque también muy ya aún todavía siempre solo sólo
    a de en con por para sobre entre hacia desde hasta según durante tras ante bajo
    aquí allí entonces
  `),
  it: words(`
    il lo la i gli le l un uno una un' del dello della dei degli delle al allo alla ai agli alle
    dal dallo dalla dai dagli dalle nel nello nella nei negli nelle sul sullo sulla sui sugli sulle
    questo questa questi queste quello quella quelli quelle
    io me mi mio mia miei mie tu te ti tuo tua lui lei esso essa
    noi ci nostro nostra voi vi vostro loro si suo sua suoi sue
    che chi cui quale dove quando come
    è e sono sei siamo siete era erano stato stata essere ho hai ha abbiamo avete hanno aveva
    può possono deve devono
    ed o od ma se perché anche molto già ancora sempre solo
    di a da in con su per tra fra verso durante
    qui qua lì là poi
  `),
  pt: words(`
    o a os as um uma uns umas do da dos das no na nos nas ao aos à às pelo pela pelos pelas
    num numa dum duma este esta estes estas esse essa esses essas aquele aquela isto isso aquilo
    eu me mim meu minha meus minhas tu te ti teu tua você vocês ele ela eles elas lhe lhes se seu sua seus suas
    nós nosso nossa vós que quem qual cujo onde quando como
    é sou és somos são era eram foi ser sido está estou estão estava tem têm tenho temos tinha há
    pode podem deve devem vai vão
    e ou mas se porque embora também muito já ainda sempre só apenas
    de em com por para sobre entre até desde durante após sob
    aqui ali lá então
  `),
  nl: words(`
    de het een der des den dit dat deze die
    ik mij me mijn jij je jou jouw u uw hij hem zijn zij ze haar het wij we ons onze jullie hun hen zich
    wie wat welk welke waar wanneer hoe
    is ben bent zijn was waren geweest wordt worden werd werden heb hebt heeft hebben had hadden
    kan kunnen moet moeten zal zullen wil willen mag
    en of maar dus want als omdat dan ook zeer heel erg al nog alleen altijd vaak
    in op aan bij met naar van voor uit over onder door tot tussen om sinds tijdens na
    hier daar er nu
  `)
}

/** Words that negate what their sentence states, per language. */
export const NEGATIONS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: words(`not no never none nothing nobody neither nor without cannot`),
  de: words(`nicht kein keine keinen keinem keiner keines nie niemals nichts ohne weder`),
  fr: words(`ne n pas jamais aucun aucune rien sans ni non`),
  es: words(`no nunca jamás ningún ninguna ninguno nada nadie sin tampoco ni`),
  it: words(`non mai nessun nessuno nessuna niente nulla senza né`),
  pt: words(`não nunca jamais nenhum nenhuma nada ninguém sem nem`),
  nl: words(`niet geen nooit niets niemand zonder noch`)
}
