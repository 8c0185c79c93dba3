import { planResume } from './resume-plan';

describe('planResume', () => {
  const keeping = { oldestKept: 100, latest: 150 };

  it('starts after the latest event when no id is given', () => {
    expect(planResume(null, keeping)).toEqual({ resume: 'live', after: 150 });
  });

  it('resumes exactly after an id still kept, or the last one before what is kept', () => {
    expect(planResume(120, keeping)).toEqual({ resume: 'complete', after: 120 });
    expect(planResume(150, keeping)).toEqual({ resume: 'complete', after: 150 });
    expect(planResume(99, keeping)).toEqual({ resume: 'complete', after: 99 });
  });

  it('says there is a gap when events after the id are no longer kept, and sends all that is', () => {
    expect(planResume(42, keeping)).toEqual({ resume: 'gap', after: 99 });
  });

  it('treats an id the stream never issued (newer than its latest) as a gap, not as caught up', () => {
    expect(planResume(9_000, keeping)).toEqual({ resume: 'gap', after: 99 });
  });

  it('resumes completely on a stream that has expired everything it had', () => {
    expect(planResume(150, { oldestKept: 151, latest: 150 })).toEqual({ resume: 'complete', after: 150 });
  });
});
