import { Type } from '@sinclair/typebox';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from '../../store/incidents.js';
import { IsoDate, StringEnum } from './common.js';

/** Request and response shapes of a status page's incidents (issue 29; beyond the spec). */

const Title = Type.String({ minLength: 1, maxLength: 200, description: 'One line of plain text' });
const Impact = StringEnum(INCIDENT_IMPACTS, { description: 'How bad it is: none, minor, major or critical' });
const Status = StringEnum(INCIDENT_STATUSES, { description: '`resolved` closes the incident' });
const Message = Type.String({ minLength: 1, maxLength: 5000, description: 'Plain text (line breaks kept), up to 5,000 characters' });
const CheckIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 500,
  description: 'Affected checks, among the page\'s own (duplicates dropped)',
});

export const CreateIncidentBody = Type.Object(
  {
    title: Title,
    impact: Type.Optional(Impact),
    status: Type.Optional(Status),
    message: Message,
    checkIds: Type.Optional(CheckIds),
  },
  { additionalProperties: false, $id: 'CreateIncident' },
);

export const UpdateIncidentBody = Type.Object(
  {
    title: Type.Optional(Title),
    impact: Type.Optional(Impact),
    checkIds: Type.Optional(CheckIds),
  },
  { additionalProperties: false, $id: 'UpdateIncident' },
);

export const IncidentUpdateBody = Type.Object(
  { status: Status, message: Message },
  { additionalProperties: false, $id: 'PostIncidentUpdate' },
);

export const IncidentListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  },
  { additionalProperties: false },
);

export const IncidentUpdateObject = Type.Object(
  { id: Type.String(), status: Status, message: Type.String(), at: IsoDate },
  { $id: 'IncidentUpdate' },
);

export const IncidentObject = Type.Object(
  {
    id: Type.String(),
    statusPageId: Type.String(),
    title: Type.String(),
    impact: Impact,
    status: Status,
    checkIds: Type.Array(Type.String()),
    updates: Type.Array(IncidentUpdateObject, { description: 'The timeline, oldest first' }),
    automatic: Type.Boolean({ description: 'Opened by Vigil for a check of a page with autoIncidents, and not taken over by an operator since' }),
    createdAt: IsoDate,
    updatedAt: IsoDate,
    resolvedAt: Type.Union([IsoDate, Type.Null()]),
  },
  { $id: 'Incident' },
);

export const IncidentResponse = Type.Object({ data: IncidentObject });
export const IncidentListResponse = Type.Object({
  data: Type.Array(IncidentObject),
  meta: Type.Object({ page: Type.Integer(), limit: Type.Integer(), total: Type.Integer() }),
});

export type CreateIncidentInput = (typeof CreateIncidentBody)['static'];
export type UpdateIncidentInput = (typeof UpdateIncidentBody)['static'];
export type IncidentUpdateInput = (typeof IncidentUpdateBody)['static'];
