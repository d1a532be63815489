/** POST /v1/articles and DELETE /v1/articles. */
import { deleteArticlesWorkflow, upsertArticlesWorkflow } from '../../workflows';
import { OPERATIONS } from '../../workflows/constants';
import { articlesDelete, articlesUpload } from '../../domain/contracts/article';
import { operation } from '../schemas/operations';
import { uploadHandler } from './upload-route';
import { guard } from './guard';
import type { RouteModule } from './types';

export const articlesRoutes: RouteModule = (router, deps) => {
  const upload = operation('uploadArticles');
  router.post(
    upload.path,
    guard(deps, upload, 'upload'),
    uploadHandler({
      runner: deps.runner,
      validators: articlesUpload,
      kind: 'articlesUpload',
      cpu: deps.cpu,
      workflow: upsertArticlesWorkflow,
      operation: OPERATIONS.upsertArticles,
      field: 'articles',
    }),
  );

  const remove = operation('deleteArticles');
  router.delete(
    remove.path,
    guard(deps, remove, 'upload'),
    uploadHandler({
      runner: deps.runner,
      validators: articlesDelete,
      kind: 'articlesDelete',
      cpu: deps.cpu,
      workflow: deleteArticlesWorkflow,
      operation: OPERATIONS.deleteArticles,
      field: 'articles',
    }),
  );
};
