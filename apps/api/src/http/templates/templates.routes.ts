import { CreateTemplate, DeleteTemplate, GetTemplate, ListTemplates, PreviewTemplate, TEMPLATE_NOT_FOUND, templateJson, UpdateTemplate } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam, pageParams } from '../params';
import { createTemplateBody, previewTemplateBody, TEMPLATE_BODY, TEMPLATE_PREVIEW_BODY, updateTemplateBody } from './templates.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Templates (docs/templates.md). Route handlers never catch: errors travel to the error handler. */
export function templatesRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, TEMPLATE_NOT_FOUND);

  router.get('/templates', async (req, res) => {
    const caller = principal(res, 'templates_read');
    const { items, total } = await container.resolve(ListTemplates).execute(caller, pageParams(req.query));
    res.json({ data: items.map(templateJson), total });
  });

  // Unsaved content rendered for the editor's live preview; nothing is stored (docs/templates.md "Preview").
  router.post('/templates/preview', async (req, res) => {
    const caller = principal(res, 'templates_read');
    const preview = await container.resolve(PreviewTemplate).execute(caller, previewTemplateBody(req.body));
    const answer = { subject: preview.subject, preheader: preview.preheader, text: preview.text, html: preview.html };
    res.json(withWarnings(answer, unrecognizedParameters(req.body, TEMPLATE_PREVIEW_BODY)));
  });

  router.get('/templates/:id', async (req, res) => {
    const caller = principal(res, 'templates_read');
    res.json(templateJson(await container.resolve(GetTemplate).execute(caller, { id: id(req.params.id) })));
  });

  router.post('/templates', async (req, res) => {
    const caller = principal(res, 'templates_write');
    const template = await container.resolve(CreateTemplate).execute(caller, createTemplateBody(req.body));
    res.status(201).json(withWarnings(templateJson(template), unrecognizedParameters(req.body, TEMPLATE_BODY)));
  });

  router.patch('/templates/:id', async (req, res) => {
    const caller = principal(res, 'templates_write');
    const templateId = id(req.params.id);
    const template = await container.resolve(UpdateTemplate).execute(caller, { id: templateId, changes: updateTemplateBody(req.body) });
    res.json(withWarnings(templateJson(template), unrecognizedParameters(req.body, TEMPLATE_BODY)));
  });

  router.delete('/templates/:id', async (req, res) => {
    const caller = principal(res, 'templates_write');
    await container.resolve(DeleteTemplate).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Template deleted successfully' });
  });

  return router;
}
