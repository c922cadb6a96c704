// HTTP of the catalogue's categories.
import type { CategoriesHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as catalogue from '../services/catalogue.ts';

export const categoriesHandlers = {
  async listCategories(input: op.ListCategoriesInput, context: ServerContext): Promise<op.ListCategoriesResult> {
    const { items, total } = await catalogue.listCategories(context.merchant(), input.query);
    return {
      status: 200,
      body: {
        items: items.map((c) => ({ name: c.name, id: c.id, defaultUnitTypeId: c.defaultUnitTypeId, itemCount: c.itemCount })),
        total,
      },
    };
  },
  async createCategory(input: op.CreateCategoryInput, context: ServerContext): Promise<op.CreateCategoryResult> {
    return { status: 200, body: { id: await catalogue.createCategory(context.merchant(), input.body) } };
  },
  async updateCategory(input: op.UpdateCategoryInput, context: ServerContext): Promise<op.UpdateCategoryResult> {
    await catalogue.updateCategory(context.merchant(), input.path.categoryId, input.body);
    return { status: 200 };
  },
  async deleteCategory(input: op.DeleteCategoryInput, context: ServerContext): Promise<op.DeleteCategoryResult> {
    await catalogue.deleteCategory(context.merchant(), input.path.categoryId);
    return { status: 200 };
  },
} satisfies CategoriesHandlers<ServerContext>;
