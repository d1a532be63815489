/**
 * A small sentiment lexicon, written for this project: words and short phrases with a valence
 * from -3 to 3 (0 for set phrases that only look emotional, such as "kind regards") in English, Spanish, French, German, Portuguese, Italian and Dutch, plus emoji and
 * emoticons, with negation ("not good"), intensifiers ("very good"), "but" (the part after it
 * counts more) and exclamation marks. It gives the local engine a second, word-level cue beside
 * the embedding classifier: the embedding of a short text blurs single strong words such as
 * "cancelled" or "rude", which the lexicon cannot miss. An entry ending in `*` matches every word
 * that starts with it.
 */

type Valence = -3 | -2 | -1 | 0 | 1 | 2 | 3;
type Entries = Partial<Record<Valence, string>>;

interface LanguageLexicon {
  words: Map<string, number>;
  /** Prefix entries, longest first. */
  prefixes: [string, number][];
  /** Phrases of two or three words, by their first word. */
  phrases: Map<string, [string[], number][]>;
  negators: Set<string>;
  intensifiers: Set<string>;
  contrast: Set<string>;
}

/** Builds a language's lexicon from space-separated entries per valence; `_` joins a phrase's words. */
function lexicon(entries: Entries, o: { negators: string; intensifiers: string; contrast: string }): LanguageLexicon {
  const words = new Map<string, number>();
  const prefixes: [string, number][] = [];
  const phrases = new Map<string, [string[], number][]>();
  for (const [valence, list] of Object.entries(entries) as [string, string][]) {
    for (const entry of list.trim().split(/\s+/)) {
      const v = Number(valence);
      if (entry.includes('_')) {
        const parts = entry.split('_');
        phrases.set(parts[0], [...(phrases.get(parts[0]) ?? []), [parts, v]]);
      } else if (entry.endsWith('*')) prefixes.push([entry.slice(0, -1), v]);
      else words.set(entry, v);
    }
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  for (const list of phrases.values()) list.sort((a, b) => b[0].length - a[0].length);
  const set = (s: string) => new Set(s.trim().split(/\s+/));
  return {
    words,
    prefixes,
    phrases,
    negators: set(o.negators),
    intensifiers: set(o.intensifiers),
    contrast: set(o.contrast),
  };
}

const EN = lexicon(
  {
    3: `love loved loves lovin excellent amazing awesome fantastic wonderful brilliant perfect outstanding superb incredible
      best thrilled delighted ecstatic phenomenal fabulous marvelous marvellous magnificent
      can't_wait cannot_wait can_not_wait thank_you_so_much thanks_so_much made_my_day`,
    2: `great good nice happy glad pleased enjoy enjoyed enjoying lovely beautiful cool fun excited exciting
      thanks thank thankful grateful appreciate appreciated appreciates kudos congrats congratulations congratulate
      recommend recommended impressed impressive helpful friendly kind polite smooth fast quick quickly easy
      proud win won winning winner yay woohoo hooray glad favourite favorite fave wow stunning gorgeous
      cute sweet legend hero heroes champion champions blessed lucky hope hopeful hoping looking_forward
      well_done thank_you much_appreciated top_notch spot_on sorted solved resolved fixed`,
    1: `ok okay fine decent better improved improvement interesting liked supportive
      safe comfortable comfy clean fair worth welcome welcomed cheers enjoyable haha lol lmao
      ready happy_to finally bonus`,
    0: `kind_regards best_regards warm_regards kind_of thanks_in_advance thank_you_in_advance`,
    [-1]: `delay delayed delays late slow waiting waited issue issues problem problems confused confusing
      unfortunately sorry miss missed missing tired boring bored meh weird odd hard difficult expensive pricey
      cold noisy crowded mistake error errors wrong doubt worried worry concern concerned sad unclear
      lost lose losing stuck complain complaint complaints overbooked
      on_hold no_one nobody nothing_works still_waiting still_no`,
    [-2]: `bad poor annoyed annoying annoys frustrated frustrating frustration disappointed disappointing disappointment
      upset angry mad rude unhelpful useless broken broke damaged dirty filthy fail failed failing fails failure
      cancelled canceled cancelling canceling ruined ruin ruins unacceptable ridiculous hate hated hates
      sucks sucked suck crap stupid dumb lame ugly nasty cheated lied lies lying liar scam unfair unprofessional
      incompetent incompetence waste wasted wasting rip_off ripoff nightmare mess chaos painful pain sick ill
      hurt hurts scared afraid fear fears terrified crying cry cried tears sadly shame shameful
      regret regrets worse sorry_to_hear never_again no_response no_reply no_help not_working doesn't_work hidden_fees
      don't_work didn't_work won't_work thanks_for_nothing`,
    [-3]: `worst terrible horrible awful horrendous atrocious pathetic disgusting disgusted disgrace disgraceful
      furious outraged outrageous appalling appalled abysmal dreadful hell hellish devastated heartbroken
      tragedy tragic disaster disastrous fuck fucking fucked shit shitty bullshit wtf hateful evil
      worst_ever epic_fail #fail`,
  },
  {
    negators: `not no never n't don't doesn't didn't can't cannot couldn't won't wouldn't shouldn't isn't aren't wasn't
      weren't haven't hasn't hadn't ain't dont doesnt didnt cant couldnt wont wouldnt isnt arent wasnt werent
      havent hasnt nothing nobody none neither nor without hardly barely`,
    intensifiers: `very so really extremely super totally absolutely incredibly truly seriously highly completely utterly
      such too most way`,
    contrast: 'but however though although',
  },
);

const ES = lexicon(
  {
    0: `saludos_cordiales un_saludo`,
    3: `excelente increíble increible perfecto perfecta maravilloso maravillosa encanta encantó encantado encantada
      genial fantástico fantástica espectacular buenísimo mejor mejores mil_gracias muchísimas_gracias`,
    2: `bueno buena buenos buenas gracias agradezco agradecido agradecida feliz felices contento contenta alegre
      amable rápido rápida rápidamente fácil recomiendo recomendable bonito bonita precioso preciosa enhorabuena
      felicidades felicitaciones ganas disfrutar disfruté gusta gustó satisfecho satisfecha resuelto solucionado
      estupendo estupenda guay ilusión`,
    1: `bien correcto vale limpio cómodo útil mejorado interesante`,
    [-1]: `retraso retrasado retrasada lento lenta problema problemas espera esperando error errores caro
      cancelación perdido perdida triste difícil complicado cansado preocupado nadie`,
    [-2]: `malo mala malos malas mal decepcionado decepcionada decepción enfadado enfadada molesto molesta harto harta
      roto rota cancelado cancelada maleducado maleducada grosero inútil sucio sucia fatal odio estafa engañado
      engañada vergüenza indignante inaceptable queja reclamación pésimo pésima`,
    [-3]: `horrible terrible peor desastre asqueroso asquerosa vergonzoso vergonzosa lamentable nefasto nefasta`,
  },
  {
    negators: 'no nunca jamás nada ni sin tampoco ningún ninguna nadie',
    intensifiers: 'muy súper super tan realmente totalmente absolutamente muchísimo demasiado',
    contrast: 'pero aunque embargo',
  },
);

const FR = lexicon(
  {
    0: `bien_cordialement cordialement`,
    3: `excellent excellente parfait parfaite génial géniale incroyable merveilleux merveilleuse adore adoré adorée
      fantastique formidable magnifique superbe meilleur meilleure top merci_beaucoup mille_mercis`,
    2: `bon bonne bons bonnes merci content contente heureux heureuse ravi ravie sympa gentil gentille aimable
      rapide rapidement facile recommande félicitations bravo super plaisir satisfait satisfaite résolu réglé
      joli jolie beau belle hâte apprécié agréable`,
    1: `bien correct propre pratique utile intéressant amélioré`,
    [-1]: `retard retardé retardée lent lente problème problèmes attente erreur cher chère annulation perdu perdue
      triste difficile compliqué inquiet inquiète`,
    [-2]: `mauvais mauvaise déçu déçue décevant décevante énervé énervée fâché fâchée marre cassé cassée annulé annulée
      impoli impolie inutile sale nul nulle déteste arnaque arnaqué honte honteux scandaleux scandaleuse
      inacceptable plainte galère mécontent mécontente`,
    [-3]: `horrible terrible pire catastrophe catastrophique désastre lamentable dégoûtant dégoûtante inadmissible`,
  },
  {
    negators: 'pas jamais rien ni sans aucun aucune',
    intensifiers: 'très trop vraiment tellement super totalement absolument extrêmement si',
    contrast: 'mais cependant pourtant',
  },
);

const DE = lexicon(
  {
    3: `ausgezeichnet hervorragend perfekt fantastisch großartig grossartig wunderbar wunderschön genial
      toll tolle super spitze klasse besten beste vielen_dank tausend_dank`,
    0: `liebe_grüße viele_grüße beste_grüße mit_freundlichen_grüßen`,
    2: `gut gute guten gutes danke dankbar glücklich zufrieden froh freundlich nett hilfsbereit schnell einfach
      empfehlen empfehlenswert schön schöne glückwunsch gratuliere freue freuen gelöst behoben angenehm lecker`,
    1: `okay ordentlich sauber bequem nützlich interessant besser verbessert`,
    [-1]: `verspätung verspätet spät langsam problem probleme warten warteschleife fehler teuer storniert verloren
      traurig schwierig kompliziert sorge besorgt niemand leider`,
    [-2]: `schlecht schlechte schlechter enttäuscht enttäuschend enttäuschung verärgert ärgerlich sauer genervt kaputt
      defekt gestrichen unfreundlich nutzlos dreckig schmutzig hasse betrug betrogen frechheit unverschämt
      inakzeptabel beschwerde mies unmöglich`,
    [-3]: `schrecklich furchtbar katastrophe katastrophal schlimmste schlechteste ekelhaft widerlich skandal
      katastrophaler`,
  },
  {
    negators: 'nicht kein keine keinen keinem keiner nie niemals ohne nichts weder',
    intensifiers: 'sehr so wirklich total absolut extrem echt äußerst mega richtig',
    contrast: 'aber jedoch doch trotzdem',
  },
);

const PT = lexicon(
  {
    0: `atenciosamente cumprimentos`,
    3: `excelente incrível perfeito perfeita maravilhoso maravilhosa adorei adoro fantástico fantástica espetacular
      melhor ótimo ótima muito_obrigado muito_obrigada`,
    2: `bom boa bons boas obrigado obrigada agradeço feliz contente satisfeito satisfeita simpático simpática
      rápido rápida fácil recomendo parabéns lindo linda resolvido gostei gosto legal`,
    1: `bem correto limpo confortável útil interessante melhorou`,
    [-1]: `atraso atrasado atrasada demora lento lenta problema problemas espera erro caro cancelamento perdido
      perdida triste difícil complicado preocupado ninguém`,
    [-2]: `mau má ruim decepcionado decepcionada decepção irritado irritada chateado chateada cansei quebrado
      quebrada cancelado cancelada grosseiro grosseira inútil sujo suja odeio golpe enganado
      enganada vergonha absurdo inaceitável reclamação péssimo péssima`,
    [-3]: `horrível terrível pior desastre nojento nojenta lamentável`,
  },
  {
    negators: 'não nunca jamais nada nem sem nenhum nenhuma ninguém',
    intensifiers: 'muito super tão realmente totalmente absolutamente extremamente demais',
    contrast: 'mas porém contudo',
  },
);

const IT = lexicon(
  {
    0: `cordiali_saluti distinti_saluti`,
    3: `eccellente incredibile perfetto perfetta meraviglioso meravigliosa adoro fantastico fantastica
      stupendo stupenda migliore ottimo ottima grazie_mille`,
    2: `buono buona buoni buone grazie felice contento contenta soddisfatto soddisfatta gentile gentilissimo
      gentilissima cortese veloce facile consiglio complimenti congratulazioni bello bella risolto piacere`,
    1: `bene corretto pulito comodo utile interessante migliorato`,
    [-1]: `ritardo lento lenta problema problemi attesa errore caro cancellazione perso persa triste difficile
      complicato preoccupato nessuno purtroppo`,
    [-2]: `cattivo cattiva male deluso delusa deludente arrabbiato arrabbiata stufo stufa rotto rotta cancellato
      cancellata scortese inutile sporco sporca odio truffa truffato truffata vergogna assurdo inaccettabile
      reclamo pessimo pessima`,
    [-3]: `orribile terribile peggiore peggio disastro schifo schifoso schifosa vergognoso vergognosa`,
  },
  {
    negators: 'non mai niente nulla né senza nessun nessuna nessuno',
    intensifiers: 'molto super così davvero veramente totalmente assolutamente estremamente troppo',
    contrast: 'ma però tuttavia',
  },
);

const NL = lexicon(
  {
    3: `uitstekend perfect fantastisch geweldig prachtig fantastische geweldige beste heerlijk super top
      heel_erg_bedankt hartelijk_dank`,
    2: `goed goede bedankt dank dankjewel dankuwel blij tevreden vriendelijk behulpzaam snel makkelijk
      aanrader aanbevelen gefeliciteerd mooi mooie opgelost leuk`,
    0: `met_vriendelijke_groet vriendelijke_groeten`,
    1: `oké prima netjes schoon handig interessant beter verbeterd`,
    [-1]: `vertraging vertraagd langzaam probleem problemen wachten fout duur geannuleerd kwijt verloren
      verdrietig moeilijk ingewikkeld zorgen niemand helaas`,
    [-2]: `slecht slechte teleurgesteld teleurstellend boos geïrriteerd kapot onbeleefd nutteloos vies smerig
      haat oplichting opgelicht schandalig onacceptabel klacht waardeloos`,
    [-3]: `vreselijk verschrikkelijk slechtste ramp rampzalig walgelijk belachelijk`,
  },
  {
    negators: 'niet geen nooit zonder niets niemand',
    intensifiers: 'heel erg zo echt totaal absoluut enorm super zeer',
    contrast: 'maar echter toch',
  },
);

const LEXICONS: Record<string, LanguageLexicon> = { en: EN, es: ES, fr: FR, de: DE, pt: PT, it: IT, nl: NL };

/** Emoji and emoticons, in every language. */
const EMOJI: [RegExp, number][] = [
  [/[😀😃😄😁😆😊☺😍🥰😘😻💕💖💗💓💞❤♥🧡💛💚💙💜🤍👍👏🙌🎉🥳✨🌟⭐💯🙏🤩😎👌✅🤗]/gu, 2],
  [/[😂🤣😅😉🙂😋😌]/gu, 1],
  [/[😕😟🙁☹😞😔😒😩😫😤🤦🙄😬😑😐]/gu, -1],
  [/[😢😭😠😡🤬👎💔😖😣😰😱🤮🤢❌😿]/gu, -2],
  [/(?:^|\s)(?:[:;=]-?[)D\]pP]|\(-?[:;]|<3|\^\^|xD|XD)(?=\s|$|[.!?,])/g, 2],
  [/(?:^|\s)(?:[:;=]'?-?[([/\\]|D-?:|<\/3)(?=\s|$|[.!?,])/g, -2],
];

/** Negation reaches this many words ahead. */
const NEGATION_WINDOW = 3;
const NEGATION_FACTOR = -0.6;
const INTENSIFIER_FACTOR = 1.3;
/** VADER's normalisation constant: `sum / sqrt(sum² + alpha)` maps a sum of valences into -1..1. */
const ALPHA = 15;

/** Lowercased words without links and @mentions; apostrophes stay inside words, hashtags keep their `#`. */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’`´]/g, "'")
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/@\w+/g, ' ')
      .match(/#?[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? []
  );
}

function wordValence(lex: LanguageLexicon, word: string): number | undefined {
  const exact = lex.words.get(word);
  if (exact !== undefined) return exact;
  for (const [prefix, v] of lex.prefixes) if (word.startsWith(prefix)) return v;
  return undefined;
}

export interface LexicalCue {
  /** -1 (very negative) to 1 (very positive); 0 when no entry matched. */
  score: number;
  /** Entries that matched (words, phrases, emoji). */
  hits: number;
}

/** The lexicon's reading of `text`, with the entries of `language` and of English. */
export function lexicalCue(text: string, language = 'en'): LexicalCue {
  const lexicons = [...new Set([LEXICONS[language], EN].filter(Boolean))];
  let sum = 0;
  let hits = 0;
  for (const [pattern, v] of EMOJI) {
    const n = text.match(pattern)?.length ?? 0;
    sum += n * v;
    hits += n;
  }
  // A hashtag is its word, unless the lexicon has the hashtag itself (#fail).
  const tokens = words(text).map((w) => (w.startsWith('#') && !lexicons.some((l) => l.words.has(w)) ? w.slice(1) : w));
  const contrastAt = tokens.findLastIndex((w) => lexicons.some((l) => l.contrast.has(w)));
  /** The last word a negator still reaches; a negation ends at the first entry it reverses. */
  let negatedThrough = -1;
  const isNegator = (w: string) => lexicons.some((l) => l.negators.has(w)) || w.endsWith("n't");
  for (let i = 0; i < tokens.length; i++) {
    let valence: number | undefined;
    let span = 1;
    for (const lex of lexicons) {
      for (const [parts, v] of lex.phrases.get(tokens[i]) ?? []) {
        if (parts.every((p, j) => tokens[i + j] === p)) {
          valence = v;
          span = parts.length;
          break;
        }
      }
      if (valence !== undefined) break;
      valence = wordValence(lex, tokens[i]);
      if (valence !== undefined) break;
    }
    if (valence === undefined) {
      if (isNegator(tokens[i])) negatedThrough = i + NEGATION_WINDOW;
      continue;
    }
    if (valence === 0) {
      i += span - 1;
      continue;
    }
    if (i <= negatedThrough) {
      valence *= NEGATION_FACTOR;
      negatedThrough = -1;
    }
    if (i > 0 && lexicons.some((l) => l.intensifiers.has(tokens[i - 1]))) valence *= INTENSIFIER_FACTOR;
    if (contrastAt >= 0) valence *= i > contrastAt ? 1.5 : 0.5;
    sum += valence;
    hits += 1;
    i += span - 1;
  }
  if (hits === 0) return { score: 0, hits: 0 };
  const bangs = Math.min(4, (text.match(/!/g) ?? []).length);
  if (sum !== 0) sum += Math.sign(sum) * bangs * 0.3;
  return { score: sum / Math.sqrt(sum * sum + ALPHA), hits };
}
