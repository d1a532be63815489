/** POST /v1/incidents: one record, stored durably, answered 201 with its id. */
import { upsertIncidentWorkflow } from '../../workflows';
import { MAX_ITEM_BYTES, OPERATIONS } from '../../workflows/constants';
import { uploads } from '../../domain/observability/metrics';
import { payloadTooLarge } from '../errors';
import type { OperationContext } from '../request-state';
import { operation } from '../schemas/operations';
import { contentKey } from './upload-route';
import { guard } from './guard';
import type { RouteModule } from './types';

export const incidentsRoutes: RouteModule = (router, deps) => {
  const upload = operation('uploadIncident');
  router.post(
    upload.path,
    guard(deps, upload, 'upload'),
    async function uploadIncident(ctx: OperationContext<'uploadIncident'>) {
      const record = ctx.state.input.body;
      const { tenant } = ctx.state.auth;
      const json = JSON.stringify(record);
      const bytes = Buffer.byteLength(json);
      if (bytes > MAX_ITEM_BYTES)
        throw payloadTooLarge(`the incident is ${bytes} bytes as JSON; at most ${MAX_ITEM_BYTES} are accepted`);
      const { id } = await deps.runner.execute({
        workflow: upsertIncidentWorkflow,
        operation: OPERATIONS.upsertIncident,
        tenant,
        key: contentKey(json),
        input: { tenant, record },
        attachToRunning: true,
        requestId: ctx.state.requestId,
        deadline: ctx.state.deadline,
      });
      uploads.inc({ kind: 'incidents', outcome: 'accepted' });
      ctx.status = 201;
      ctx.body = { result: 'success', id };
    },
  );
};
