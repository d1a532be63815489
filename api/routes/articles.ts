/** POST /v1/articles and DELETE /v1/articles. */
import { deleteArticlesWorkflow, upsertArticlesWorkflow } from '../../workflows';
import { OPERATIONS } from '../../workflows/constants';
import type { AuthState } from '../middlewares/auth';
import { articlesDelete, articlesUpload, type Article, type DeleteArticle } from '../schemas/article';
import { operation } from '../schemas/operations';
import { checkUploadItems } from '../schemas/upload';
import { lastById, runUpload } from '../uploads';
import { guard } from './guard';
import type { RouteModule } from './types';

export const articlesRoutes: RouteModule = (router, deps) => {
  const upload = operation('uploadArticles');
  router.post(upload.path, guard(deps, upload, 'upload'), async function uploadArticles(ctx) {
    const { items, failed } = checkUploadItems<Article>(articlesUpload, ctx.state.input.body);
    ctx.body = await runUpload({
      runner: deps.runner,
      workflow: upsertArticlesWorkflow as any,
      operation: OPERATIONS.upsertArticles,
      tenant: (ctx.state.auth as AuthState).tenant,
      field: 'articles',
      items: lastById(items, (a) => a.articleId),
      rejected: failed,
      deadline: ctx.state.deadline,
    });
  });

  const remove = operation('deleteArticles');
  router.delete(remove.path, guard(deps, remove, 'upload'), async function deleteArticles(ctx) {
    const { items, failed } = checkUploadItems<DeleteArticle>(articlesDelete, ctx.state.input.body);
    ctx.body = await runUpload({
      runner: deps.runner,
      workflow: deleteArticlesWorkflow as any,
      operation: OPERATIONS.deleteArticles,
      tenant: (ctx.state.auth as AuthState).tenant,
      field: 'articles',
      items: lastById(items, (a) => a.articleId),
      rejected: failed,
      deadline: ctx.state.deadline,
    });
  });
};
