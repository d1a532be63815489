/** POST /v1/cases. */
import { upsertCasesWorkflow } from '../../workflows';
import { OPERATIONS } from '../../workflows/constants';
import type { AuthState } from '../middlewares/auth';
import { casesUpload, type Case } from '../schemas/case';
import { operation } from '../schemas/operations';
import { checkUploadItems } from '../schemas/upload';
import { lastById, runUpload } from '../uploads';
import { guard } from './guard';
import type { RouteModule } from './types';

export const casesRoutes: RouteModule = (router, deps) => {
  const upload = operation('uploadCases');
  router.post(upload.path, guard(deps, upload, 'upload'), async function uploadCases(ctx) {
    const { items, failed } = checkUploadItems<Case>(casesUpload, ctx.state.input.body);
    ctx.body = await runUpload({
      runner: deps.runner,
      workflow: upsertCasesWorkflow as any,
      operation: OPERATIONS.upsertCases,
      tenant: (ctx.state.auth as AuthState).tenant,
      field: 'cases',
      items: lastById(items, (c) => c.id),
      rejected: failed,
      deadline: ctx.state.deadline,
    });
  });
};
