/** POST /v1/cases. */
import { upsertCasesWorkflow } from '../../workflows';
import { OPERATIONS } from '../../workflows/constants';
import { casesUpload } from '../../domain/contracts/case';
import { operation } from '../schemas/operations';
import { uploadHandler } from './upload-route';
import { guard } from './guard';
import type { RouteModule } from './types';

export const casesRoutes: RouteModule = (router, deps) => {
  const upload = operation('uploadCases');
  router.post(
    upload.path,
    guard(deps, upload, 'upload'),
    uploadHandler({
      runner: deps.runner,
      validators: casesUpload,
      kind: 'casesUpload',
      cpu: deps.cpu,
      workflow: upsertCasesWorkflow,
      operation: OPERATIONS.upsertCases,
      field: 'cases',
      extra: deps.tagTraining ? { tagTraining: deps.tagTraining } : undefined,
    }),
  );
};
