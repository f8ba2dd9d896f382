import { ConfigToken, type Config } from '@mailcast/adapters';
import {
  CreateFormVariant,
  CreateOptInForm,
  DeleteOptInForm,
  DuplicateOptInForm,
  GetFormAnalytics,
  GetOptInForm,
  ListOptInForms,
  OPT_IN_FORM_NOT_FOUND,
  OPT_IN_FORMS_PAGE_SIZE,
  UpdateOptInForm,
} from '@mailcast/core';
import { Router, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam } from '../params';
import { unrecognizedParameters, withWarnings, type Warning } from '../warnings';
import { presentAnalytics, presentForm } from './opt-in-form.presenter';
import { analyticsQuery, DUPLICATE_BODY, duplicateBody, FORM_BODY, formBody, listParams, VARIANT_BODY, variantBody } from './opt-in-forms.schemas';

/** The authenticated API of opt-in forms (docs/opt-in-forms.md). Route handlers never catch. */
export function optInFormsRoutes(container: DependencyContainer): Router {
  const router = Router();
  const publicUrl = container.resolve<Config>(ConfigToken).publicUrl;
  const id = (raw: string | string[] | undefined) => idParam(raw, OPT_IN_FORM_NOT_FOUND);
  /** A form's answer, read after the change with its figures. */
  const answer = async (res: Response, caller: ReturnType<typeof principal>, formId: number, status: number, warnings: Warning[] = []) => {
    const view = await container.resolve(GetOptInForm).execute(caller, { id: formId });
    res.status(status).json(withWarnings(presentForm(view, publicUrl), warnings));
  };

  router.get('/opt_in_forms', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_read');
    const params = listParams(req.query);
    const { items, total } = await container.resolve(ListOptInForms).execute(caller, params);
    const pages = Math.ceil(total / OPT_IN_FORMS_PAGE_SIZE);
    res.json({
      opt_in_forms: items.map((v) => presentForm(v, publicUrl)),
      pagination: {
        prev: params.page > 1 ? params.page - 1 : null,
        next: params.page < pages ? params.page + 1 : null,
        count: total,
        pages,
        page: params.page,
      },
    });
  });

  router.post('/opt_in_forms', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_write');
    const form = await container.resolve(CreateOptInForm).execute(caller, formBody(req.body));
    await answer(res, caller, form.id, 201, unrecognizedParameters(req.body, FORM_BODY));
  });

  router.get('/opt_in_forms/:id', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_read');
    res.json(presentForm(await container.resolve(GetOptInForm).execute(caller, { id: id(req.params.id) }), publicUrl));
  });

  router.patch('/opt_in_forms/:id', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_write');
    const form = await container.resolve(UpdateOptInForm).execute(caller, { id: id(req.params.id), ...formBody(req.body) });
    await answer(res, caller, form.id, 200, unrecognizedParameters(req.body, FORM_BODY));
  });

  router.delete('/opt_in_forms/:id', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_write');
    await container.resolve(DeleteOptInForm).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Opt-in form deleted' });
  });

  router.get('/opt_in_forms/:id/analytics', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_read');
    const { warnings, ...range } = analyticsQuery(req.query);
    const analytics = await container.resolve(GetFormAnalytics).execute(caller, { id: id(req.params.id), ...range });
    res.json(withWarnings(presentAnalytics(analytics), warnings));
  });

  router.post('/opt_in_forms/:id/variants', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_write');
    const variant = await container.resolve(CreateFormVariant).execute(caller, { id: id(req.params.id), ...variantBody(req.body) });
    await answer(res, caller, variant.id, 201, unrecognizedParameters(req.body, VARIANT_BODY));
  });

  router.post('/opt_in_forms/:id/duplicate', async (req, res) => {
    const caller = principal(res, 'opt_in_forms_write');
    const copy = await container.resolve(DuplicateOptInForm).execute(caller, { id: id(req.params.id), ...duplicateBody(req.body) });
    await answer(res, caller, copy.id, 201, unrecognizedParameters(req.body, DUPLICATE_BODY));
  });

  return router;
}
