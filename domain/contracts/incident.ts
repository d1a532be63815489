/** Engineering, devops or status-page incidents (spec "Incident upload record"). */
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, freeForm, id, list, LIMITS, str } from './common';

const status = (description: string) => str(LIMITS.label, `${description} (free string).`);

export const IncidentUploadSchema = {
  $id: 'IncidentUpload',
  type: 'object',
  description:
    'An incident upload record, in the shape of a status-page incident. Unknown fields, at every level ' +
    'except `postmortem`, are ignored.',
  required: ['incident', 'components', 'updates'],
  additionalProperties: false,
  properties: {
    /** The incident itself. */
    incident: {
      type: 'object',
      description: 'The incident.',
      additionalProperties: false,
      properties: {
        /** Incident identifier; when absent the service assigns one (returned as `id`). */
        id: id(
          'Incident identifier; re-uploading the same id replaces the incident. When absent the service assigns one, returned as `id`.',
        ),
        /** Incident name. */
        name: str(LIMITS.title, 'Incident name.'),
        /** Incident status. */
        status: status('Incident status'),
        /** Short link to the incident page. */
        shortlink: str(LIMITS.url, 'Short link to the incident page.'),
        /** When the incident started. */
        started_at: dateTime('When the incident started.'),
        /** When the incident was last updated. */
        updated_at: dateTime('When the incident was last updated.'),
      },
    },
    /** Components the incident concerns. */
    components: list(
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          /** Component identifier. */
          id: str(LIMITS.id, 'Component identifier.'),
          /** Component name. */
          name: str(LIMITS.title, 'Component name.'),
          /** Component status. */
          status: status('Component status'),
          /** When the component status last changed. */
          last_updated_at: dateTime('When the component status last changed.'),
        },
      },
      LIMITS.listItems,
      'Components the incident concerns.',
    ),
    /** Status updates of the incident. */
    updates: list(
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          /** Impact stated by the update. */
          impact: str(LIMITS.label, 'Impact stated by the update (free string).'),
          /** Incident status after the update. */
          status: status('Incident status after the update'),
          /** Text of the update. */
          body: str(LIMITS.text, 'Text of the update.'),
          /** When the update was posted. */
          created_at: dateTime('When the update was posted.'),
          /** Component status changes of the update. */
          affected_components: list(
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                /** Component name. */
                name: str(LIMITS.title, 'Component name.'),
                /** Status before the update. */
                old_status: status('Status before the update'),
                /** Status after the update. */
                new_status: status('Status after the update'),
              },
            },
            LIMITS.listItems,
            'Component status changes of the update.',
          ),
        },
      },
      LIMITS.listItems,
      'Status updates of the incident.',
    ),
    /** Free-form postmortem. */
    postmortem: freeForm('Postmortem of the incident.'),
  },
} as const;
export type IncidentUpload = FromSchema<typeof IncidentUploadSchema>;

export const IncidentUploadResponseSchema = {
  $id: 'IncidentUploadResponse',
  type: 'object',
  description: 'Addition: the body of 201 (the spec shows none).',
  required: ['result', 'id'],
  additionalProperties: false,
  properties: {
    /** Always `success`. */
    result: { const: 'success', description: 'Always `success`.' },
    /** Identifier of the stored incident. */
    id: { type: 'string', description: 'Identifier of the stored incident (`incident.id`, or the one assigned).' },
  },
} as const;
export type IncidentUploadResponse = FromSchema<typeof IncidentUploadResponseSchema>;
