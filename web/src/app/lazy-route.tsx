import { Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { LoadingState } from '../components/page-states';

/** Renders a React.lazy route component with a loading state while its chunk arrives. */
export function lazyElement(Component: LazyExoticComponent<ComponentType>) {
  return (
    <Suspense fallback={<LoadingState />}>
      <Component />
    </Suspense>
  );
}
