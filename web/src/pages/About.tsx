import { useEffect } from 'react';
import { Link, useLocation } from 'react-router-dom';

function AboutPage() {
  const { hash } = useLocation();
  useEffect(() => {
    if (hash) document.getElementById(hash.slice(1))?.scrollIntoView();
  }, [hash]);
  return (
    <article className="container page narrow prose">
      <p className="eyebrow">About</p>
      <h1>Rendering made simple</h1>
      <section aria-labelledby="what-we-do">
        <h2 id="what-we-do">What We Do</h2>
        <p>
          Cloud Render turns professionally designed Blender scenes into templates anyone can use. Pick a scene, add your
          own text, image, 3D model or music, choose colours and a resolution, and we render a high-quality still image or
          animation for you in the cloud. You see the price before you pay, and you only pay for what you render.
        </p>
      </section>
      <section aria-labelledby="technology">
        <h2 id="technology">Our Technology</h2>
        <p>
          Every scene is built by a script in Blender, the open-source 3D suite, and rendered with its Cycles path tracer
          on dedicated cloud machines, one per job. Audio-reactive scenes analyse your track frame by frame at 30 frames
          per second, so the motion follows your music exactly. Progress is reported live while your render runs, and a
          render that is interrupted can be resumed from the frames already finished.
        </p>
      </section>
      <section aria-labelledby="privacy-title" id="privacy">
        <h2 id="privacy-title">Privacy and Data Collection</h2>
        <ul>
          <li>
            <strong>Payments</strong> go through our card payment provider. Your card details are entered in the
            provider&apos;s secure form and never reach or stay on our servers.
          </li>
          <li>
            <strong>Uploaded files</strong> (images, models, audio) are used only to render your job and are deleted after
            processing.
          </li>
          <li>
            <strong>Your account</strong> holds your email address, credit balance and history, favorite scenes and render
            jobs. Only you can see them.
          </li>
          <li>
            <strong>Usage statistics</strong>: we count page views and anonymous sessions to improve the product. We store
            a hash of your browser&apos;s user agent, never the agent itself, and no advertising trackers.
          </li>
        </ul>
      </section>
      <section aria-labelledby="contact">
        <h2 id="contact">Get in Touch</h2>
        <p>
          Questions, ideas for a new scene, or a render that did not turn out as expected? Use <strong>Report Issue</strong>{' '}
          on the job in your <Link to="/job-history">job history</Link>, or write to us at{' '}
          <a href="mailto:support@cloudrender.example">support@cloudrender.example</a>. We usually answer within one
          business day.
        </p>
      </section>
    </article>
  );
}

export default AboutPage;
