import type { Skill } from './types';

export function SkillList({ skills }: { skills: Skill[] }) {
  return (
    <ul className="skills">
      {skills.map((skill) => (
        <li key={skill.id} className="skill">
          <h3>
            {skill.name} <code className="muted">{skill.id}</code>
          </h3>
          {skill.description && <p>{skill.description}</p>}
          {skill.tags.length > 0 && (
            <ul className="tags" aria-label={`Tags of ${skill.name}`}>
              {skill.tags.map((tag) => (
                <li key={tag}>{tag}</li>
              ))}
            </ul>
          )}
          <details>
            <summary>Input schema</summary>
            <pre tabIndex={0}>{JSON.stringify(skill.input_schema, null, 2)}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
