/** The demo memes: real captions (a few with accented words) and tags from the demo tag catalog. */
export interface DemoMeme {
  caption: string
  tags: string[]
}

export const DEMO_TAGS = [
  'bugs',
  'cats',
  'coding',
  'coffee',
  'dogs',
  'food',
  'git',
  'monday',
  'music',
  'travel',
  'weekend',
  'work',
] as const

export const DEMO_MEMES: DemoMeme[] = [
  { caption: 'When the café runs out of oat milk', tags: ['coffee', 'monday'] },
  { caption: 'Déjà vu: the same bug fixed twice', tags: ['bugs', 'coding'] },
  { caption: 'My naïve regex meets real user input', tags: ['coding'] },
  { caption: 'Jalapeño pizza was a mistake', tags: ['food'] },
  { caption: 'Piñata full of merge conflicts', tags: ['coding', 'git'] },
  { caption: 'Crème brûlée for breakfast, no regrets', tags: ['food'] },
  { caption: 'Cat knocks the coffee off the desk', tags: ['cats', 'coffee'] },
  { caption: 'Dog waiting for the pizza delivery', tags: ['dogs', 'food'] },
  { caption: 'It works on my machine', tags: ['bugs', 'coding'] },
  { caption: 'Monday morning standup energy', tags: ['monday', 'work'] },
  { caption: 'Friday deploy, what could go wrong', tags: ['coding', 'work'] },
  { caption: 'Cat sleeping on the warm laptop', tags: ['cats'] },
  { caption: 'Résumé says expert in everything', tags: ['work'] },
  { caption: 'Façade of productivity during the meeting', tags: ['work'] },
  { caption: 'Über excited about the new framework', tags: ['coding'] },
  { caption: 'Señor developer reviews your pull request', tags: ['coding', 'git'] },
  { caption: 'Dog learns to fetch the newspaper', tags: ['dogs'] },
  { caption: 'When the build is green on the first try', tags: ['coding'] },
  { caption: 'Coffee is my love language', tags: ['coffee'] },
  { caption: 'Cat judges your playlist', tags: ['cats', 'music'] },
  { caption: 'Headphones on, do not disturb', tags: ['music', 'work'] },
  { caption: 'Weekend plans: sleep and more sleep', tags: ['weekend'] },
  { caption: 'Exploring the mountains this weekend', tags: ['travel', 'weekend'] },
  { caption: 'Lost luggage, found vacation', tags: ['travel'] },
  { caption: 'Cold brew or hot espresso, the eternal debate', tags: ['coffee'] },
  { caption: 'Git push force on a Friday afternoon', tags: ['git', 'work'] },
  { caption: 'Dog in sunglasses at the beach', tags: ['dogs', 'travel'] },
  { caption: 'Smörgåsbord of unfinished side projects', tags: ['coding'] },
  { caption: 'Stack overflow saved my career again', tags: ['coding'] },
  { caption: 'Rainy day, cozy blanket and tea', tags: ['weekend'] },
  { caption: 'Keyboard cat plays the final song', tags: ['cats', 'music'] },
  { caption: 'Pizza with pineapple starts an argument', tags: ['food'] },
  { caption: 'Tired developer stares at logs at midnight', tags: ['bugs', 'coding'] },
  { caption: 'Hungry cat demands breakfast at five', tags: ['cats', 'food'] },
  { caption: 'Zoë taught the dog a new trick', tags: ['dogs'] },
  { caption: 'Airport coffee costs more than the flight', tags: ['coffee', 'travel'] },
]
