/**
 * The words an answer frames its sources with, per request language: the title of the source
 * list, the lead-in before the extract, the polite no-answer, and how an incident is described.
 * Seven languages; any other language falls back to English.
 */

export const LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface Phrases {
  linksTitle: string;
  /** Before the extract of an article: `title` is the article's. */
  fromArticle: (title: string) => string;
  /** Before the extract of a similar case (agents only). */
  fromCase: (title: string) => string;
  noAnswer: string;
  /** An incident: its name, when it started, its status, whether it is still going on. */
  incident: (o: { name: string; started?: string; status?: string; ongoing: boolean }) => string;
  latestUpdate: string;
}

const PHRASES: Record<Language, Phrases> = {
  en: {
    linksTitle: 'Sources',
    fromArticle: (t) => `Here is what “${t}” says:`,
    fromCase: (t) => `A similar case, “${t}”, was answered like this:`,
    noAnswer:
      "Sorry, I couldn't find an answer to your question in our help content. Please rephrase it or contact support.",
    incident: (o) =>
      `${o.ongoing ? 'There is an ongoing incident' : 'There was an incident'}: “${o.name}”` +
      `${o.started ? `, started ${o.started}` : ''}${o.status ? `. Current status: ${o.status}` : ''}.`,
    latestUpdate: 'Latest update:',
  },
  es: {
    linksTitle: 'Fuentes',
    fromArticle: (t) => `Esto es lo que dice «${t}»:`,
    fromCase: (t) => `Un caso similar, «${t}», se respondió así:`,
    noAnswer:
      'Lo siento, no encontré una respuesta a tu pregunta en nuestro contenido de ayuda. Reformúlala o contacta con soporte.',
    incident: (o) =>
      `${o.ongoing ? 'Hay una incidencia en curso' : 'Hubo una incidencia'}: «${o.name}»` +
      `${o.started ? `, iniciada el ${o.started}` : ''}${o.status ? `. Estado actual: ${o.status}` : ''}.`,
    latestUpdate: 'Última actualización:',
  },
  fr: {
    linksTitle: 'Sources',
    fromArticle: (t) => `Voici ce qu’indique « ${t} » :`,
    fromCase: (t) => `Un cas similaire, « ${t} », a reçu cette réponse :`,
    noAnswer:
      "Désolé, je n'ai pas trouvé de réponse à votre question dans notre contenu d'aide. Reformulez-la ou contactez le support.",
    incident: (o) =>
      `${o.ongoing ? 'Un incident est en cours' : 'Un incident a eu lieu'} : « ${o.name} »` +
      `${o.started ? `, commencé le ${o.started}` : ''}${o.status ? `. Statut actuel : ${o.status}` : ''}.`,
    latestUpdate: 'Dernière mise à jour :',
  },
  de: {
    linksTitle: 'Quellen',
    fromArticle: (t) => `Das steht in „${t}“:`,
    fromCase: (t) => `Ein ähnlicher Fall, „${t}“, wurde so beantwortet:`,
    noAnswer:
      'Leider habe ich in unseren Hilfeinhalten keine Antwort auf Ihre Frage gefunden. Bitte formulieren Sie sie um oder wenden Sie sich an den Support.',
    incident: (o) =>
      `${o.ongoing ? 'Es gibt eine laufende Störung' : 'Es gab eine Störung'}: „${o.name}“` +
      `${o.started ? `, begonnen am ${o.started}` : ''}${o.status ? `. Aktueller Status: ${o.status}` : ''}.`,
    latestUpdate: 'Letzte Aktualisierung:',
  },
  pt: {
    linksTitle: 'Fontes',
    fromArticle: (t) => `Isto é o que diz «${t}»:`,
    fromCase: (t) => `Um caso semelhante, «${t}», foi respondido assim:`,
    noAnswer:
      'Desculpe, não encontrei uma resposta para a sua pergunta no nosso conteúdo de ajuda. Reformule-a ou contacte o suporte.',
    incident: (o) =>
      `${o.ongoing ? 'Há um incidente em curso' : 'Houve um incidente'}: «${o.name}»` +
      `${o.started ? `, iniciado em ${o.started}` : ''}${o.status ? `. Estado atual: ${o.status}` : ''}.`,
    latestUpdate: 'Última atualização:',
  },
  it: {
    linksTitle: 'Fonti',
    fromArticle: (t) => `Ecco cosa dice «${t}»:`,
    fromCase: (t) => `Un caso simile, «${t}», ha ricevuto questa risposta:`,
    noAnswer:
      'Spiacente, non ho trovato una risposta alla tua domanda nei nostri contenuti di assistenza. Riformulala o contatta il supporto.',
    incident: (o) =>
      `${o.ongoing ? 'È in corso un incidente' : "C'è stato un incidente"}: «${o.name}»` +
      `${o.started ? `, iniziato il ${o.started}` : ''}${o.status ? `. Stato attuale: ${o.status}` : ''}.`,
    latestUpdate: 'Ultimo aggiornamento:',
  },
  nl: {
    linksTitle: 'Bronnen',
    fromArticle: (t) => `Dit staat in ‘${t}’:`,
    fromCase: (t) => `Een vergelijkbare case, ‘${t}’, werd zo beantwoord:`,
    noAnswer:
      'Sorry, ik heb in onze helpinhoud geen antwoord op je vraag gevonden. Formuleer de vraag anders of neem contact op met support.',
    incident: (o) =>
      `${o.ongoing ? 'Er is een lopende storing' : 'Er was een storing'}: ‘${o.name}’` +
      `${o.started ? `, begonnen op ${o.started}` : ''}${o.status ? `. Huidige status: ${o.status}` : ''}.`,
    latestUpdate: 'Laatste update:',
  },
};

export const isLanguage = (code: string | undefined): code is Language =>
  (LANGUAGES as readonly string[]).includes(code ?? '');

/** The phrases of `code` (an ISO 639-1 code, any case, with or without a region), else English. */
export function phrases(code: string | undefined): Phrases {
  const base = code?.toLowerCase().split(/[-_]/)[0];
  return PHRASES[isLanguage(base) ? base : 'en'];
}
